/**
 * deploy/k8s/overlays/production: the base made fit for a real cluster.
 * Image pinned by digest, settings merged into the hashed ConfigMap,
 * migrations as Jobs (pods run with MIGRATE=off), autoscaling, a hard
 * one-pod-per-node spread, NATS credentials mounted, an Ingress exposing
 * only the public paths, and the monitoring objects. The Secrets it reads
 * are productionSecrets.ts's.
 */
import type { ServiceEntry } from '../launcher/services.js';
import { envFile } from './base.js';
import { containerSecurity, deploymentEnvIndex, envList, labels, podSecurity, resourcesYaml, writableMounts, writableVolumes } from './kubernetes.js';
import { migrationResources } from './resources.js';
import { generatedHeader, imageName, indent, infrastructurePorts, namespaceName, partOf, secretName } from './settings.js';
import { externalSecret, natsSecretName, serviceDatabaseKey, smdpSecretKeys, smdpSecretName } from './productionSecrets.js';
import { runnersOf, workloadsOf, type Workload } from './workloads.js';

/**
 * Services the HPA scales on CPU, with their ceiling: the request path
 * (gateway, orders, wallet) and webhook delivery. Their test-mode replicas
 * are not scaled: one pod under a CPU cap is test mode's whole capacity
 * (workloads.ts), so test load can never claim nodes live orders need.
 */
export const autoscaled: Record<string, { maxReplicas: number }> = {
  gateway: { maxReplicas: 10 },
  orders: { maxReplicas: 6 },
  wallet: { maxReplicas: 6 },
  webhooks: { maxReplicas: 6 },
};

/**
 * What the Ingress exposes of the public listener: the partner API, the
 * supplier's notification endpoint (the supplier calls it from the internet,
 * signed), the docs, and the partner portal. Nothing else (no /metrics, no probes).
 */
export const publicPaths: Array<{ path: string; pathType: 'Prefix' | 'Exact' }> = [
  { path: '/api/v1', pathType: 'Prefix' },
  { path: '/supplier/v1/notifications', pathType: 'Exact' },
  { path: '/docs', pathType: 'Prefix' },
  { path: '/openapi.json', pathType: 'Exact' },
  { path: '/portal', pathType: 'Prefix' },
];

/** A digest no registry has: the overlay cannot run until a real build is pinned (`kustomize edit set image`). */
export const digestPlaceholder = `sha256:${'0'.repeat(64)}`;
export const registryImage = `registry.example.com/${imageName}`;
const natsMount = '/etc/esim/nats';
const hostName = 'api.example.com';

/**
 * The production brokers, shaped as the cluster suite (test/cluster/) runs
 * them: a JetStream cluster of three servers (the NATS Helm chart's
 * StatefulSet), listed server by server, with every stream at R3; and a Redis
 * Cluster of three masters with one replica each (a redis-cluster chart's
 * StatefulSet), through all six as seed nodes. REDIS_URL is then unused.
 */
export const natsServers = Array.from({ length: 3 }, (_, i) => `nats://nats-${i}.nats-headless.nats.svc.cluster.local:4222`);
export const redisClusterNodes = Array.from({ length: 6 }, (_, i) => `redis-cluster-${i}.redis-cluster-headless.redis.svc.cluster.local:6379`);

export const productionSettings: Record<string, string> = {
  NODE_ENV: 'production',
  LOG_LEVEL: 'info',
  DEPLOYMENT_ENVIRONMENT: 'production',
  // The migration Jobs apply the schema; pods wait for it and never run DDL.
  MIGRATE: 'off',
  // One ingress controller in front: X-Forwarded-For's last hop is the client it saw.
  TRUST_PROXY: '1',
  NATS_URL: natsServers.join(','),
  NATS_CREDS: `${natsMount}/user.creds`,
  NATS_TLS_CA: `${natsMount}/ca.crt`,
  NATS_STREAM_REPLICAS: '3',
  REDIS_CLUSTER_NODES: redisClusterNodes.join(','),
  OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector.observability.svc.cluster.local:4318',
  // 10 % of traces; a partner's traceparent keeps its trace id but not its sampling decision.
  OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
  OTEL_TRACES_SAMPLER_ARG: '0.1',
  WEBHOOK_ALLOW_INSECURE_URLS: 'false',
  // Contract §8: live orders reach the operator's real upstreams (SMDP_ES2_URL, CONNECTIVITY_URL from the Secret);
  // the simulator stays deployed only as test mode's upstream (§14).
  TEST_MODE_SMDP_ES2_URL: 'http://supplier-sim:8090',
  TEST_MODE_CONNECTIVITY_URL: 'http://supplier-sim:8090',
  // The ES2+ client identity and the SM-DP+'s CA, mounted from the esim-smdp Secret (docs/deployment.md).
  SMDP_CLIENT_CERT: '/etc/esim/smdp/tls.crt',
  SMDP_CLIENT_KEY: '/etc/esim/smdp/tls.key',
  SMDP_CA: '/etc/esim/smdp/ca.crt',
};

const withPostgres = (list: readonly ServiceEntry[]) => list.filter((entry) => entry.needs.includes('postgres'));
const nameRegex = (named: ReadonlyArray<{ name: string }>) => `^(${named.map((item) => item.name).join('|')})$`;
/** The workloads (a service and its test-mode replica) whose service needs `need`: both connect the same way. */
const workloadsNeeding = (list: readonly ServiceEntry[], need: ServiceEntry['needs'][number]) => workloadsOf(list).filter((workload) => workload.entry.needs.includes(need));

function migrationJob(entry: ServiceEntry): string {
  const name = `${entry.name}-migrate`;
  const jobLabels = labels(name, { 'app.kubernetes.io/component': 'migration' });
  const serviceRole = `- name: SERVICE_DATABASE_URL\n  valueFrom:\n    secretKeyRef:\n      name: ${secretName}\n      key: ${serviceDatabaseKey(entry)}`;
  return `# Applies ${entry.name}'s schema (MIGRATE=only), as the DDL-capable role in MIGRATION_DATABASE_URL, then creates or
# updates the role in SERVICE_DATABASE_URL (${serviceDatabaseKey(entry)}, what ${entry.name}'s pods connect with) with rights on that schema only.
apiVersion: batch/v1
kind: Job
metadata:
  name: ${name}
  labels:
${indent(jobLabels, 4)}
  annotations:
    # Argo CD runs it before syncing the Deployments, replacing the previous run.
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation
spec:
  backoffLimit: 4
  activeDeadlineSeconds: 900
  # Gone an hour after it finished, so the next \`kubectl apply\` creates it anew (a Job's template is immutable).
  ttlSecondsAfterFinished: 3600
  template:
    metadata:
      labels:
${indent(jobLabels, 8)}
    spec:
${indent(podSecurity, 6)}
      restartPolicy: Never
      containers:
        - name: migrate
          image: ${imageName}
          envFrom:
            - configMapRef:
                name: esim-config
          env:
${indent(envList(entry, { literal: { MIGRATE: 'only' }, secretKeys: { DATABASE_URL: 'MIGRATION_DATABASE_URL' } }), 12)}
${indent(serviceRole, 12)}
${indent(resourcesYaml(migrationResources), 10)}
${indent(containerSecurity, 10)}
${indent(writableMounts, 10)}
${indent(writableVolumes, 6)}`;
}

function migrations(list: readonly ServiceEntry[]): string {
  const policy = `# Migration pods reach Postgres (and DNS, allowed to every pod) and nothing else.
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: migrations
  labels:
    app.kubernetes.io/part-of: ${partOf}
spec:
  podSelector:
    matchLabels:
      app.kubernetes.io/component: migration
  policyTypes: ["Ingress", "Egress"]
  ingress: []
  egress:
    - ports:
${infrastructurePorts.postgres.map((port) => `        - protocol: TCP\n          port: ${port}`).join('\n')}`;
  return `${generatedHeader}
#
# One Job per service with a schema. Pods of this overlay start with
# MIGRATE=off and wait until their Job has applied every migration they ship,
# so the order of \`kubectl apply\` does not matter. Re-running after a new
# image: delete the finished Jobs first (docs/deployment.md), or let Argo CD's
# hook annotations do it.
${[...withPostgres(list).map(migrationJob), policy].join('\n---\n')}
`;
}

function autoscaling(list: readonly ServiceEntry[]): string {
  const hpas = list
    .filter((entry) => autoscaled[entry.name])
    .map(
      (entry) => `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: ${entry.name}
  labels:
${indent(labels(entry.name), 4)}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: ${entry.name}
  minReplicas: 2
  maxReplicas: ${autoscaled[entry.name]!.maxReplicas}
  metrics:
    - type: Resource
      resource:
        name: cpu
        target:
          type: Utilization
          averageUtilization: 70
  behavior:
    # Scale up at once; down only after 5 minutes of lower load, so a burst does not flap.
    scaleDown:
      stabilizationWindowSeconds: 300`,
    );
  return `${generatedHeader}
#
# CPU-based autoscaling; the Deployments these scale carry no replicas field
# in this overlay, so \`kubectl apply\` never resets what the HPA chose.
${hpas.join('\n---\n')}
`;
}

function ingress(list: readonly ServiceEntry[]): string {
  const edges = list.filter((entry) => entry.public?.includes('http'));
  const paths = edges.flatMap((entry) =>
    publicPaths.map(
      ({ path, pathType }) => `- path: ${path}
  pathType: ${pathType}
  backend:
    service:
      name: ${entry.name}
      port:
        name: http`,
    ),
  );
  return `${generatedHeader}
#
# The partner-facing paths of the public listener, and nothing else: the
# probes, /metrics and any other path answer the controller's 404. The admin
# listener is never behind it (ClusterIP only; see docs/deployment.md).
# Set the host, the TLS secret and the class for your cluster.
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: public-api
  labels:
    app.kubernetes.io/part-of: ${partOf}
  annotations:
    # The gateway refuses bodies over 16 KiB itself; the proxy stops anything far larger first.
    nginx.ingress.kubernetes.io/proxy-body-size: 64k
spec:
  ingressClassName: nginx
  tls:
    - hosts: ["${hostName}"]
      secretName: esim-api-tls
  rules:
    - host: ${hostName}
      http:
        paths:
${indent(paths.join('\n'), 10)}
`;
}

function patches(list: readonly ServiceEntry[]): string {
  const scaled = list.filter((entry) => autoscaled[entry.name]);
  const natsUsers = workloadsNeeding(list, 'nats');
  const redisUsers = workloadsNeeding(list, 'redis');
  // A test replica connects as its service's role (its env list is longer, so it gets its own index).
  const ownRole = workloadsNeeding(list, 'postgres').map((workload: Workload) => {
    const index = deploymentEnvIndex(workload, list, 'DATABASE_URL');
    if (index < 0) throw new Error(`${workload.name} needs postgres but its Deployment has no DATABASE_URL`);
    return `  - target:
      kind: Deployment
      name: "^(${workload.name})$"
    patch: |-
      - op: test
        path: /spec/template/spec/containers/0/env/${index}/name
        value: DATABASE_URL
      - op: replace
        path: /spec/template/spec/containers/0/env/${index}/valueFrom/secretKeyRef/key
        value: ${serviceDatabaseKey(workload.entry)}`;
  });
  return `patches:
  # No two pods of a service on one node (the base only prefers it); zones stay a preference.
  - target:
      kind: Deployment
      labelSelector: app.kubernetes.io/part-of=${partOf}
    patch: |-
      - op: replace
        path: /spec/template/spec/topologySpreadConstraints/1/whenUnsatisfiable
        value: DoNotSchedule
  # The HPA owns these replica counts (test-mode replicas keep their one pod).
  - target:
      kind: Deployment
      name: "${nameRegex(scaled)}"
    patch: |-
      - op: remove
        path: /spec/replicas
  # NATS credentials and CA from the ${natsSecretName} Secret, as files (NATS_CREDS, NATS_TLS_CA).
  - target:
      kind: Deployment
      name: "${nameRegex(natsUsers)}"
    patch: |-
      - op: add
        path: /spec/template/spec/volumes/-
        value:
          name: nats-credentials
          secret:
            secretName: ${natsSecretName}
            defaultMode: 288 # 0440: readable by the pod's group (fsGroup) only
      - op: add
        path: /spec/template/spec/containers/0/volumeMounts/-
        value:
          name: nats-credentials
          mountPath: ${natsMount}
          readOnly: true
  # One database role per service (#24): each Deployment's DATABASE_URL from its own key, a role with rights on its
  # schema only (its migration Job grants them). The test op fails the build if the base moves DATABASE_URL.
${ownRole.join('\n')}
  # The Redis Cluster's password (REDIS_CLUSTER_NODES carries none) is a secret.
  - target:
      kind: Deployment
      name: "${nameRegex(redisUsers)}"
    patch: |-
      - op: add
        path: /spec/template/spec/containers/0/env/-
        value:
          name: REDIS_PASSWORD
          valueFrom:
            secretKeyRef:
              name: ${secretName}
              key: REDIS_PASSWORD
  # The real SM-DP+ and connectivity provider (contract §8): their URLs and requester id from the Secret
  # (they override the base's simulator addresses), the ES2+ certificates as files from the ${smdpSecretName} Secret.
  # Its test replica too: the same config refuses to start in production without them.
  - target:
      kind: Deployment
      name: "${nameRegex(runnersOf('provisioning', list))}"
    patch: |-
${smdpSecretKeys
  .map(
    (key) => `      - op: add
        path: /spec/template/spec/containers/0/env/-
        value:
          name: ${key}
          valueFrom:
            secretKeyRef:
              name: ${secretName}
              key: ${key}`,
  )
  .join('\n')}
      - op: add
        path: /spec/template/spec/volumes/-
        value:
          name: smdp-tls
          secret:
            secretName: ${smdpSecretName}
            defaultMode: 288 # 0440
      - op: add
        path: /spec/template/spec/containers/0/volumeMounts/-
        value:
          name: smdp-tls
          mountPath: /etc/esim/smdp
          readOnly: true`;
}

function kustomization(list: readonly ServiceEntry[]): string {
  return `${generatedHeader}
#
# kubectl apply -k deploy/k8s/overlays/production, once the ${secretName} and
# ${natsSecretName} Secrets exist (external-secret.example.yaml) and a real image
# digest is pinned below:
#   (cd deploy/k8s/overlays/production && kustomize edit set image ${imageName}=${registryImage}@sha256:<digest>)
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: ${namespaceName}
resources:
  - ../../base
  - ../../monitoring
  - migrations.yaml
  - autoscaling.yaml
  - ingress.yaml
configMapGenerator:
  - name: esim-config
    behavior: merge
    envs:
      - config.env
images:
  - name: ${imageName}
    newName: ${registryImage}
    digest: ${digestPlaceholder}
${patches(list)}
`;
}

/** Every file of deploy/k8s/overlays/production, by name. */
export function productionFiles(list: readonly ServiceEntry[]): Record<string, string> {
  return {
    'kustomization.yaml': kustomization(list),
    'config.env': envFile(
      `Production settings, merged over the base's (same ConfigMap, new hash: a
change rolls every pod). NATS_URL lists the three JetStream servers and
REDIS_CLUSTER_NODES the six Redis Cluster nodes, as the cluster suite runs
them; REDIS_PASSWORD comes from the Secret in this overlay.`,
      [['Production', productionSettings]],
    ),
    'migrations.yaml': migrations(list),
    'autoscaling.yaml': autoscaling(list),
    'ingress.yaml': ingress(list),
    'external-secret.example.yaml': externalSecret(list),
  };
}
