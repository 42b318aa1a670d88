// Protects what each overlay really deploys, as `kubectl kustomize` renders it: schema-valid objects, and the policies every pod relies on (probes, resources, a disruption budget, a network policy, no API token), plus production's own rules.
import { describe, it, expect } from 'vitest';
import { z } from 'zod';
import { commonEnv, natsServerList } from '@esim/config';
import { parse } from 'yaml';
import { Deployment, type IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import { services as serviceList, testModeServices, testReplicaName } from '../scripts/launcher/services.js';
import { autoscaled, publicPaths } from '../scripts/deploy/production.js';
import { productionSecretKeys } from '../scripts/deploy/productionSecrets.js';
import { infrastructurePorts, metricsPort, peers, privateRanges } from '../scripts/deploy/settings.js';
import { containersOf, kindOf, kinds, named, ofKind, onPath, overlays, parseDocuments, readText, render, selects, unknownKeys, type Json } from './support/deployFiles.js';

type Rule = { from?: Json[]; to?: Json[]; ports?: Array<{ port: number; protocol?: string }> };
type Policy = { metadata: { name: string }; spec: { podSelector: { matchLabels?: Record<string, string> }; ingress?: Rule[]; egress?: Rule[]; policyTypes: string[] } };

const deploymentsOf = (docs: Json[]) => ofKind(docs, 'Deployment').map((doc) => new Deployment(doc as unknown as IDeployment));
const policiesOf = (docs: Json[]) => ofKind(docs, 'NetworkPolicy') as unknown as Policy[];
const podLabels = (deployment: Deployment) => deployment.spec?.template.metadata?.labels;
const ownPolicy = (docs: Json[], name: string) => policiesOf(docs).find((policy) => policy.spec.podSelector.matchLabels?.['app.kubernetes.io/name'] === name)!;
const portsOf = (rule: Rule) => (rule.ports ?? []).map((port) => port.port).sort((a, b) => a - b);
/** Test mode's replicas, as the launcher names them; the service a Deployment runs (itself, or the one it replicates). */
const replicaNames = testModeServices.map((service) => testReplicaName(service));
const serviceOf = (name: string) => testModeServices.find((service) => testReplicaName(service) === name) ?? name;
const entry = (name: string) => serviceList.find((candidate) => candidate.name === serviceOf(name))!;
const millicores = (quantity: unknown) => (String(quantity).endsWith('m') ? Number(String(quantity).slice(0, -1)) : Number(quantity) * 1000);

describe.skipIf(!onPath('kubectl'))('every overlay, rendered by kubectl kustomize', () => {
  describe.each(overlays)('%s', (overlay) => {
    const docs = () => render(`overlays/${overlay}`);

    it('when rendered, then every object matches the Kubernetes schema (1.27), holds no unknown keys and lands in the esim namespace', () => {
      for (const doc of docs()) {
        const kind = kinds[kindOf(doc)];
        expect(kind, kindOf(doc)).toBeDefined();
        expect(() => kind!.validate(doc), `${kindOf(doc)} ${named(doc)}`).not.toThrow();
        expect(unknownKeys(doc, kind!.shape), `${kindOf(doc)} ${named(doc)}`).toEqual([]);
        if (doc.kind !== 'Namespace') expect((doc.metadata as Json).namespace, `${kindOf(doc)} ${named(doc)}`).toBe('esim');
      }
      expect(deploymentsOf(docs()).map((deployment) => deployment.metadata?.name).sort()).toEqual([...serviceList.map((e) => e.name), ...replicaNames].sort());
    });

    it('when a Deployment runs, then it has probes, requests and limits, a disruption budget, a network policy of its own and no API token', () => {
      const budgets = ofKind(docs(), 'PodDisruptionBudget') as Array<{ spec: { selector: { matchLabels: Record<string, string> }; maxUnavailable?: number } }>;
      const accounts = ofKind(docs(), 'ServiceAccount') as Array<{ metadata: { name: string }; automountServiceAccountToken?: boolean }>;
      for (const deployment of deploymentsOf(docs())) {
        const name = deployment.metadata!.name!;
        const pod = deployment.spec!.template.spec!;
        for (const container of containersOf(deployment)) {
          for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe'] as const) expect(container[probe], `${name} ${probe}`).toBeDefined();
          for (const bound of ['requests', 'limits'] as const) expect(Object.keys(container.resources?.[bound] ?? {}).sort(), `${name} ${bound}`).toEqual(['cpu', 'memory']);
        }
        expect(budgets.filter((budget) => selects(budget.spec.selector.matchLabels, podLabels(deployment))), `${name} PodDisruptionBudget`).toHaveLength(1);
        expect(ownPolicy(docs(), name), `${name} NetworkPolicy`).toBeDefined();
        expect(pod.serviceAccountName ?? 'default', name).not.toBe('default');
        expect(pod.automountServiceAccountToken, name).toBe(false);
        expect(accounts.find((account) => account.metadata.name === pod.serviceAccountName)?.automountServiceAccountToken, `${name}'s ServiceAccount`).toBe(false);
      }
    });

    it('when a pod is not named by a policy, then it is still denied everything: the namespace denies by default', () => {
      const deny = policiesOf(docs()).find((policy) => policy.metadata.name === 'default-deny');
      expect(deny?.spec).toEqual({ podSelector: {}, policyTypes: ['Ingress', 'Egress'] });
    });

    it('when the ConfigMap is generated, then its name carries a content hash and every container reads that one', () => {
      const [config] = ofKind(docs(), 'ConfigMap').filter((doc) => named(doc).startsWith('esim-config'));
      expect(named(config!)).toMatch(/^esim-config-[a-z0-9]{10}$/);
      for (const deployment of deploymentsOf(docs())) {
        expect(containersOf(deployment)[0]?.envFrom?.map((source) => source.configMapRef?.name), deployment.metadata?.name).toEqual([named(config!)]);
      }
    });

    it('when something is published, then it is no LoadBalancer or NodePort Service: only the Ingress (production) reaches in', () => {
      const types = ofKind(docs(), 'Service').map((doc) => (doc.spec as Json).type);
      expect(types.every((type) => type === 'ClusterIP')).toBe(true);
    });
  });

  describe('production', () => {
    const docs = () => render('overlays/production');
    const config = () => (ofKind(docs(), 'ConfigMap').find((doc) => named(doc).startsWith('esim-config'))!.data ?? {}) as Record<string, string>;

    it('when the image is pinned, then every container runs the registry image by digest, never a tag', () => {
      const containers = [...ofKind(docs(), 'Deployment'), ...ofKind(docs(), 'Job')].flatMap((doc) => ((doc.spec as Json).template as { spec: { containers: Array<{ image: string }> } }).spec.containers);
      expect(containers.length).toBeGreaterThan(serviceList.length);
      for (const { image } of containers) {
        expect(image).toMatch(/^registry\.example\.com\/esim-platform@sha256:[0-9a-f]{64}$/);
        expect(image).not.toMatch(/:latest|:dev/);
      }
    });

    it('when it runs, then every service has at least two replicas, from the Deployment or from its autoscaler, and test mode one unscaled pod each', () => {
      const hpas = ofKind(docs(), 'HorizontalPodAutoscaler') as Array<{ spec: { scaleTargetRef: { name: string }; minReplicas: number; metrics: Array<{ resource: { name: string } }> } }>;
      expect(hpas.map((hpa) => hpa.spec.scaleTargetRef.name).sort()).toEqual(['gateway', 'orders', 'wallet', 'webhooks']);
      expect(Object.keys(autoscaled).sort()).toEqual(['gateway', 'orders', 'wallet', 'webhooks']);
      for (const hpa of hpas) expect(hpa.spec.metrics.map((metric) => metric.resource.name)).toEqual(['cpu']);
      for (const deployment of deploymentsOf(docs())) {
        const hpa = hpas.find((candidate) => candidate.spec.scaleTargetRef.name === deployment.metadata?.name);
        if (replicaNames.includes(deployment.metadata!.name!)) {
          // Test mode's capacity is a fixed cap: no autoscaler may grow it into what live orders need.
          expect(hpa, deployment.metadata?.name).toBeUndefined();
          expect(deployment.spec?.replicas, deployment.metadata?.name).toBe(1);
          continue;
        }
        // The HPA owns the count: a replicas field would be reset by every apply.
        if (hpa) expect(deployment.spec?.replicas, deployment.metadata?.name).toBeUndefined();
        expect(hpa?.spec.minReplicas ?? deployment.spec?.replicas, deployment.metadata?.name).toBeGreaterThanOrEqual(2);
      }
    });

    it('when pods are scheduled, then they spread over zones and never share a node', () => {
      for (const deployment of deploymentsOf(docs())) {
        const spread = deployment.spec!.template.spec!.topologySpreadConstraints ?? [];
        const byKey = Object.fromEntries(spread.map((constraint) => [constraint.topologyKey, constraint.whenUnsatisfiable]));
        expect(byKey, deployment.metadata?.name).toEqual({ 'topology.kubernetes.io/zone': 'ScheduleAnyway', 'kubernetes.io/hostname': 'DoNotSchedule' });
        for (const constraint of spread) expect(selects(constraint.labelSelector?.matchLabels as Record<string, string>, podLabels(deployment))).toBe(true);
      }
    });

    it('when the schema changes, then one migration Job per service with a database applies it and the pods only wait for it', () => {
      expect(config().MIGRATE).toBe('off');
      const jobs = ofKind(docs(), 'Job') as Array<{ metadata: { name: string }; spec: { template: { spec: { containers: Array<{ env: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { key: string } } }> }> } } } }>;
      const withDatabase = serviceList.filter((e) => e.needs.includes('postgres')).map((e) => `${e.name}-migrate`).sort();
      expect(jobs.map((job) => job.metadata.name).sort()).toEqual(withDatabase);
      for (const job of jobs) {
        const env = job.spec.template.spec.containers[0]!.env;
        expect(env.find((variable) => variable.name === 'MIGRATE')?.value, job.metadata.name).toBe('only');
        expect(env.find((variable) => variable.name === 'DATABASE_URL')?.valueFrom?.secretKeyRef?.key, job.metadata.name).toBe('MIGRATION_DATABASE_URL');
      }
      const migrationPolicy = policiesOf(docs()).find((policy) => policy.spec.podSelector.matchLabels?.['app.kubernetes.io/component'] === 'migration');
      expect(migrationPolicy?.spec.egress?.map(portsOf)).toEqual([infrastructurePorts.postgres]);
    });

    it('when services connect to Postgres, then each Deployment reads its own DATABASE_URL key, and its migration Job grants that role (SERVICE_DATABASE_URL, the same key)', () => {
      const keyOf = (env: Array<{ name: string; valueFrom?: { secretKeyRef?: { key: string } } }> | undefined, name: string) =>
        env?.find((variable) => variable.name === name)?.valueFrom?.secretKeyRef?.key;
      const withDatabase = serviceList.filter((e) => e.needs.includes('postgres'));
      const seen = new Set<string>();
      for (const deployment of deploymentsOf(docs())) {
        const name = deployment.metadata!.name!;
        const key = keyOf(containersOf(deployment)[0]?.env as never, 'DATABASE_URL');
        if (!withDatabase.some((e) => e.name === serviceOf(name))) {
          expect(key, name).toBeUndefined();
          continue;
        }
        // A test-mode replica connects as its service's role: it has no migration Job of its own.
        expect(key, name).toBe(`${serviceOf(name).toUpperCase()}_DATABASE_URL`);
        seen.add(key!);
      }
      expect(seen.size).toBe(withDatabase.length);
      const jobs = ofKind(docs(), 'Job') as Array<{ metadata: { name: string }; spec: { template: { spec: { containers: Array<{ env: Array<{ name: string; valueFrom?: { secretKeyRef?: { key: string } } }> }> } } } }>;
      for (const job of jobs) {
        const service = job.metadata.name.replace(/-migrate$/, '');
        expect(keyOf(job.spec.template.spec.containers[0]!.env, 'SERVICE_DATABASE_URL'), job.metadata.name).toBe(`${service.toUpperCase()}_DATABASE_URL`);
      }
      // No production pod reads the shared key any more: a leaked pod credential opens one schema, not seven.
      expect(productionSecretKeys(serviceList).has('DATABASE_URL')).toBe(false);
    });

    it('when partners reach the platform, then the Ingress exposes only the public paths of the public listener', () => {
      const [ingress, ...others] = ofKind(docs(), 'Ingress') as Array<{ spec: { rules: Array<{ http: { paths: Array<{ path: string; pathType: string; backend: { service: { name: string; port: { name: string } } } }> } }> } }>;
      expect(others).toEqual([]);
      const paths = ingress!.spec.rules.flatMap((rule) => rule.http.paths);
      expect(paths.map(({ path, pathType }) => ({ path, pathType }))).toEqual(publicPaths);
      expect(publicPaths.map((p) => p.path)).toEqual(['/api/v1', '/supplier/v1/notifications', '/docs', '/openapi.json', '/portal']);
      for (const path of paths) expect(path.backend.service).toEqual({ name: 'gateway', port: { name: 'http' } });
    });

    it('when traffic flows, then the policies allow exactly: ingress → public port, callers → gRPC ports, Prometheus → metrics, services → their infrastructure, webhooks → internet:443', () => {
      const gateway = ownPolicy(docs(), 'gateway');
      const fromIngress = gateway.spec.ingress!.filter((rule) => JSON.stringify(rule.from ?? []).includes(peers.ingressNamespace));
      expect(fromIngress.map(portsOf)).toEqual([[entry('gateway').ports.http]]);
      // Every gRPC API but provisioning's (only orders calls it).
      for (const target of serviceList.filter((e) => e.ports.grpc !== undefined && e.name !== 'provisioning')) {
        const toTarget = gateway.spec.egress!.find((rule) => JSON.stringify(rule.to ?? []).includes(`"app.kubernetes.io/name":"${target.name}"`));
        expect(toTarget && portsOf(toTarget), `gateway → ${target.name}`).toEqual([target.ports.grpc]);
        const inbound = ownPolicy(docs(), target.name).spec.ingress!.find((rule) => JSON.stringify(rule.from ?? []).includes('"app.kubernetes.io/name":"gateway"'));
        expect(inbound && portsOf(inbound), `${target.name} ← gateway`).toEqual([target.ports.grpc]);
      }
      for (const service of serviceList) {
        const policy = ownPolicy(docs(), service.name);
        const scrape = policy.spec.ingress!.find((rule) => JSON.stringify(rule.from ?? []).includes(peers.prometheusNamespace));
        expect(scrape && portsOf(scrape), `Prometheus → ${service.name}`).toEqual([service.ports[metricsPort(service.ports)]]);
        const infra = service.needs.flatMap((need) => infrastructurePorts[need]).sort((a, b) => a - b);
        const open = policy.spec.egress!.filter((rule) => rule.to === undefined).flatMap(portsOf).sort((a, b) => a - b);
        expect(open, `${service.name} → ${service.needs.join(', ')}`).toEqual(infra);
      }
      const internet = ownPolicy(docs(), 'webhooks').spec.egress!.filter((rule) => JSON.stringify(rule.to ?? []).includes('0.0.0.0/0'));
      expect(internet).toEqual([{ ports: [{ protocol: 'TCP', port: 443 }], to: [{ ipBlock: { cidr: '0.0.0.0/0', except: privateRanges } }] }]);
      const admin = gateway.spec.ingress!.find((rule) => portsOf(rule).includes(entry('gateway').ports.admin!));
      expect(JSON.stringify(admin?.from)).not.toContain(peers.ingressNamespace);
    });

    it('when services connect to NATS, then the credentials and CA are mounted where NATS_CREDS and NATS_TLS_CA point, and streams get three replicas', () => {
      const settings = config();
      expect(settings.NATS_STREAM_REPLICAS).toBe('3');
      for (const deployment of deploymentsOf(docs())) {
        const needsNats = entry(deployment.metadata!.name!).needs.includes('nats');
        const mounts = containersOf(deployment)[0]?.volumeMounts ?? [];
        const natsMount = mounts.find((mount) => mount.name === 'nats-credentials');
        expect(Boolean(natsMount), deployment.metadata?.name).toBe(needsNats);
        if (natsMount) {
          expect(String(settings.NATS_CREDS).startsWith(`${natsMount.mountPath}/`)).toBe(true);
          expect(String(settings.NATS_TLS_CA).startsWith(`${natsMount.mountPath}/`)).toBe(true);
        }
      }
    });

    it('when production connects to its brokers, then NATS_URL lists three JetStream servers and REDIS_CLUSTER_NODES six Redis Cluster nodes, as the cluster suite runs them, both valid for the services\' config and the Redis password from the Secret', () => {
      const settings = config();
      const parsed = z.object({ NATS_URL: commonEnv.NATS_URL, REDIS_CLUSTER_NODES: commonEnv.REDIS_CLUSTER_NODES }).parse(settings);
      expect(natsServerList(parsed.NATS_URL)).toHaveLength(3);
      expect(new Set(natsServerList(parsed.NATS_URL)).size).toBe(3);
      expect(parsed.REDIS_CLUSTER_NODES).toHaveLength(6);
      expect(settings.NATS_STREAM_REPLICAS).toBe('3');
      for (const deployment of deploymentsOf(docs())) {
        const env = containersOf(deployment)[0]?.env ?? [];
        const needsRedis = entry(deployment.metadata!.name!).needs.includes('redis');
        expect(env.some((variable) => variable.name === 'REDIS_PASSWORD' && variable.valueFrom?.secretKeyRef?.key === 'REDIS_PASSWORD'), deployment.metadata?.name).toBe(needsRedis);
        expect(env.some((variable) => variable.name === 'REDIS_URL'), deployment.metadata?.name).toBe(false);
      }
    });

    it('when production samples traces and trusts the proxy, then the choices are the documented ones', () => {
      expect(config()).toMatchObject({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1', TRUST_PROXY: '1', NODE_ENV: 'production' });
      const docs = readText('docs/deployment.md');
      expect(docs).toContain('parentbased_traceidratio');
      expect(docs).toContain('TRUST_PROXY');
    });

    it('when the overlay reads a Secret key, then the ExternalSecret example provides it', () => {
      const [external] = parseDocuments('deploy/k8s/overlays/production/external-secret.example.yaml') as Array<{ spec: { data: Array<{ secretKey: string }> } }>;
      const provided = external!.spec.data.map((item) => item.secretKey).sort();
      const read = new Set<string>();
      for (const doc of [...ofKind(docs(), 'Deployment'), ...ofKind(docs(), 'Job')]) {
        for (const container of ((doc.spec as Json).template as { spec: { containers: Array<{ env?: Array<{ valueFrom?: { secretKeyRef?: { key: string } } }> }> } }).spec.containers) {
          for (const variable of container.env ?? []) if (variable.valueFrom?.secretKeyRef) read.add(variable.valueFrom.secretKeyRef.key);
        }
      }
      expect([...read].sort()).toEqual(provided);
      expect([...productionSecretKeys(serviceList).keys()].sort()).toEqual(provided);
    });

    it('when test mode runs in production, then each replica is capped below its live service\'s CPU limit and provisioning-test reaches the same upstream settings', () => {
      const named = (name: string) => deploymentsOf(docs()).find((deployment) => deployment.metadata?.name === name)!;
      for (const service of testModeServices) {
        const [live, replica] = [named(service), named(testReplicaName(service))].map((deployment) => containersOf(deployment)[0]!);
        expect(millicores(replica!.resources?.limits?.cpu), service).toBeLessThan(millicores(live!.resources?.limits?.cpu));
        expect(replica!.env?.find((variable) => variable.name === 'EVENT_LANES')?.value, service).toBe('test');
      }
      // Production's provisioning refuses to start without a real SM-DP+: its replica gets what it gets.
      const upstream = (name: string) => {
        const container = containersOf(named(name))[0]!;
        return {
          env: (container.env ?? []).filter((variable) => /^(SMDP_|CONNECTIVITY_)/.test(variable.name)),
          mounts: (container.volumeMounts ?? []).filter((mount) => mount.name === 'smdp-tls'),
        };
      };
      expect(upstream('provisioning').env.length).toBeGreaterThan(0);
      expect(upstream('provisioning-test')).toEqual(upstream('provisioning'));
    });

    it('when test mode has its own replicas, then the network policies mirror the live ones (gateway → the replicas, replica → replica as the live calls go, replica → shared services) and allow nothing beyond', () => {
      const policies = policiesOf(docs());
      const isReplica = (token: string) => replicaNames.includes(token);
      /** Each flow a policy allows: `<direction> <its pods> <peer> <port>`, the peer a pod of the namespace by name, else as written. */
      const flows = (policy: Policy) => {
        const own = policy.spec.podSelector.matchLabels?.['app.kubernetes.io/name'] ?? '';
        return (['ingress', 'egress'] as const).flatMap((direction) =>
          (policy.spec[direction] ?? []).flatMap((rule) => {
            const peerList: Array<Json | undefined> = (direction === 'ingress' ? rule.from : rule.to) ?? [undefined];
            return peerList.flatMap((peer) => {
              const pod = peer && Object.keys(peer).length === 1 ? ((peer.podSelector as Json | undefined)?.matchLabels as Record<string, string> | undefined)?.['app.kubernetes.io/name'] : undefined;
              return portsOf(rule).map((port) => `${direction} ${own} ${pod !== undefined ? pod : JSON.stringify(peer ?? 'anywhere')} ${port}`);
            });
          }),
        );
      };
      /** A flow with every replica read as the service it replicates. */
      const mirror = (flow: string) => flow.split(' ').map((token) => (isReplica(token) ? serviceOf(token) : token)).join(' ');
      const touchesReplica = (flow: string) => flow.split(' ').some(isReplica);
      const liveFlows = new Set(policies.flatMap(flows).filter((flow) => !touchesReplica(flow)));

      // Nothing beyond the mirror: every flow naming a replica is, read as its service, a flow the platform already allows.
      const replicaFlows = policies.flatMap(flows).filter(touchesReplica);
      expect(replicaFlows.length).toBeGreaterThan(0);
      for (const flow of replicaFlows) expect(liveFlows.has(mirror(flow)), `${flow}: no live counterpart`).toBe(true);

      for (const service of testModeServices) {
        const replica = ownPolicy(docs(), testReplicaName(service));
        expect(replica, `${testReplicaName(service)} NetworkPolicy`).toBeDefined();
        // The whole mirror outward: what the service may reach, its replica may reach (replicated services as their replicas).
        const egress = (policy: Policy) => new Set(flows(policy).filter((flow) => flow.startsWith('egress ')).map(mirror));
        expect(egress(replica)).toEqual(egress(ownPolicy(docs(), service)));
        // A test order's calls stay on test pods: a replica never dials a live pod of a replicated service.
        for (const flow of flows(replica).filter((f) => f.startsWith('egress '))) {
          expect((testModeServices as readonly string[]).includes(flow.split(' ')[2]!), flow).toBe(false);
        }
        // Nothing outside the platform reaches a replica: the Ingress, a real SM-DP+ and operators reach live pods.
        expect(JSON.stringify(replica.spec.ingress)).not.toContain(peers.ingressNamespace);
        expect(JSON.stringify(replica.spec.ingress)).not.toContain(peers.adminAccessLabel);
        // Prometheus scrapes it as it scrapes the service.
        expect(JSON.stringify(replica.spec.ingress)).toContain(peers.prometheusNamespace);
      }
      const allows = (direction: 'ingress' | 'egress', policyOf: string, peer: string, port: number) => flows(ownPolicy(docs(), policyOf)).includes(`${direction} ${policyOf} ${peer} ${port}`);
      for (const service of ['wallet', 'orders', 'webhooks']) {
        const port = entry(service).ports.grpc!;
        expect(allows('egress', 'gateway', testReplicaName(service), port), `gateway → ${service}-test`).toBe(true);
        expect(allows('ingress', testReplicaName(service), 'gateway', port), `${service}-test ← gateway`).toBe(true);
      }
      expect(allows('egress', 'orders-test', 'wallet-test', entry('wallet').ports.grpc!)).toBe(true);
      expect(allows('ingress', 'wallet-test', 'orders-test', entry('wallet').ports.grpc!)).toBe(true);
      expect(allows('egress', 'orders-test', 'provisioning-test', entry('provisioning').ports.grpc!)).toBe(true);
      expect(allows('ingress', 'catalog', 'orders-test', entry('catalog').ports.grpc!)).toBe(true);
      expect(allows('ingress', 'partners', 'webhooks-test', entry('partners').ports.grpc!)).toBe(true);
      expect(allows('ingress', 'supplier-sim', 'provisioning-test', entry('supplier-sim').ports.http!)).toBe(true);
      // Live pods of the saga never call a replica, and no one calls one the live call graph does not.
      expect(allows('egress', 'orders', 'wallet-test', entry('wallet').ports.grpc!)).toBe(false);
      expect(allows('ingress', 'wallet-test', 'orders', entry('wallet').ports.grpc!)).toBe(false);
      expect(allows('egress', 'gateway', 'provisioning-test', entry('provisioning').ports.grpc!)).toBe(false);
    });

    it('when Prometheus runs the operator, then a PodMonitor scrapes every metrics port and the PrometheusRule holds alerts.yml', () => {
      const [monitor] = ofKind(docs(), 'PodMonitor') as Array<{ spec: { podMetricsEndpoints: Array<{ port: string }> } }>;
      const ports = new Set(monitor!.spec.podMetricsEndpoints.map((endpoint) => endpoint.port));
      for (const deployment of deploymentsOf(docs())) {
        const declared = containersOf(deployment)[0]?.ports?.map((port) => port.name) ?? [];
        expect(declared.filter((name) => ports.has(name!)), deployment.metadata?.name).toHaveLength(1);
      }
      const [rule] = ofKind(docs(), 'PrometheusRule') as Array<{ spec: unknown }>;
      expect(rule!.spec).toEqual(parse(readText('deploy/observability/alerts.yml')));
    });
  });

  describe('dev', () => {
    const docs = () => render('overlays/dev');

    it('when it runs on a laptop cluster, then each service runs once, with its secrets generated and migrations at start', () => {
      for (const deployment of deploymentsOf(docs())) expect(deployment.spec?.replicas, deployment.metadata?.name).toBe(1);
      const [secret] = ofKind(docs(), 'Secret') as Array<{ metadata: { name: string }; data: Record<string, string> }>;
      expect(secret!.metadata.name).toMatch(/^esim-secrets-/);
      const read = new Set(deploymentsOf(docs()).flatMap((d) => (containersOf(d)[0]?.env ?? []).flatMap((v) => (v.valueFrom?.secretKeyRef ? [v.valueFrom.secretKeyRef.key] : []))));
      expect(Object.keys(secret!.data).sort()).toEqual([...read].sort());
      const config = ofKind(docs(), 'ConfigMap').find((doc) => named(doc).startsWith('esim-config'))!.data as Record<string, string>;
      expect(config.MIGRATE).toBe('on-start');
    });
  });
});
