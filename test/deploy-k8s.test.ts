// Protects the generated kustomize base (deploy/k8s/base) from drifting away from the service list, the services' configs and the Kubernetes schema, offline, without a cluster.
import { describe, it, expect } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  addressEnv,
  constantCase,
  defaultPorts,
  portEnv,
  portVariables,
  readinessPort,
  serviceSpecs,
  services as serviceList,
  testModeServices,
  testReplicaName,
  type PortKind,
  type Ports,
} from '../scripts/launcher/services.js';
import { callsOf } from '../scripts/deploy/calls.js';
import { measuredPeakRssMiB } from '../scripts/deploy/resources.js';
import { portNames, secretKeysOf, shutdown } from '../scripts/deploy/settings.js';
import {
  root,
  baseDir,
  configMap,
  configMapName,
  containersOf,
  deployments,
  envValue,
  k8sServices,
  kindOf,
  kinds,
  kustomization,
  manifestFiles,
  manifests,
  probeTargetsDeclaredPort,
  resourceFiles,
  runAsUser,
  secretExample,
  secretName,
  unknownKeys,
  type Json,
} from './support/deployFiles.js';

const listedNames = serviceList.map((entry) => entry.name).sort();
/** Test mode's replicas, named as the launcher names them (scripts/launcher/services.ts). */
const replicaNames = testModeServices.map((service) => testReplicaName(service));
/** The service a Deployment runs: itself, or the one it is test mode's replica of. */
const serviceOf = (name: string) => testModeServices.find((service) => testReplicaName(service) === name) ?? name;
const mebibytes = (quantity: string | undefined) => Number(/^(\d+)Mi$/.exec(quantity ?? '')?.[1] ?? NaN);
/** A CPU quantity in millicores (`1`, `500m`, `0.5`). */
const millicores = (quantity: string | number | undefined) => {
  const text = String(quantity ?? '');
  return text.endsWith('m') ? Number(text.slice(0, -1)) : Number(text) * 1000;
};
const deploymentNamed = (name: string) => deployments.find((deployment) => deployment.metadata?.name === name);

describe('the unknown-key check', () => {
  const fixture = (): Json => structuredClone(manifests.find(({ doc }) => kindOf(doc) === 'apps/v1/Deployment')!.doc);

  it('when a container key is misspelled, then it names the key and its path', () => {
    const deployment = fixture();
    const container = ((deployment.spec as Json).template as Json).spec as { containers: Json[] };
    const first = container.containers[0]!;
    first.readinesProbe = first.readinessProbe;
    delete first.readinessProbe;

    expect(unknownKeys(deployment, kinds['apps/v1/Deployment']!.shape)).toEqual(['spec.template.spec.containers[0].readinesProbe: unknown key']);
  });

  it('when a mapping is indented under a value, then it is reported as misplaced', () => {
    const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'x', labels: { a: { b: 'c' } } } };

    expect(unknownKeys(service, kinds['v1/Service']!.shape)).toEqual(['metadata.labels.a: expected a value, found a structure']);
  });

  it('when kubernetes-models sees a wrong type, then validation throws', () => {
    const deployment = fixture();
    (deployment.spec as Json).replicas = 'two';

    expect(() => kinds['apps/v1/Deployment']!.validate(deployment)).toThrow(/replicas/);
  });
});

describe('the Kubernetes base', () => {
  it.each(manifests.map(({ file, doc }) => [`${file} ${String(doc.kind)}/${String((doc.metadata as Json | undefined)?.name)}`, doc] as const))(
    'when %s is validated, then it matches the Kubernetes schema and holds no unknown keys',
    (_name, doc) => {
      const kind = kinds[kindOf(doc)];
      expect(kind, kindOf(doc)).toBeDefined();
      expect(() => kind!.validate(doc)).not.toThrow();
      expect(unknownKeys(doc, kind!.shape)).toEqual([]);
    },
  );

  it('when kustomization.yaml lists resources, then each exists, every manifest is listed and the settings come from config.env', () => {
    for (const file of resourceFiles) expect(existsSync(join(baseDir, file)), file).toBe(true);
    expect([...resourceFiles].sort()).toEqual(manifestFiles);
    expect(kustomization.namespace).toBe('esim');
    expect(kustomization.configMapGenerator).toEqual([{ name: configMapName, envs: ['config.env'] }]);
  });

  it('when an entry is in the service list (or test mode replicates it), then it has a Deployment in its own listed file, and nothing else does', () => {
    for (const name of [...listedNames, ...replicaNames]) {
      expect(resourceFiles, `${name}.yaml in kustomization.yaml`).toContain(`${name}.yaml`);
      const home = manifests.find(({ doc }) => kindOf(doc) === 'apps/v1/Deployment' && (doc.metadata as Json).name === name);
      expect(home?.file, `Deployment ${name}`).toBe(`${name}.yaml`);
    }
    expect(deployments.map((deployment) => deployment.metadata?.name).sort()).toEqual([...listedNames, ...replicaNames].sort());
  });

  it.each(serviceList.map((entry) => [entry.name, entry] as const))('when %s runs, then its container gets its ports, secrets, probes and downward-API names from the list', (name, entry) => {
    const deployment = deployments.find((d) => d.metadata?.name === name)!;
    const container = containersOf(deployment)[0]!;
    for (const [variable, port] of Object.entries(portEnv(entry.ports))) expect(envValue(container, variable), variable).toBe(port);
    const kinds = Object.keys(entry.ports) as PortKind[];
    expect(container.ports?.map((port) => [port.name, port.containerPort])).toEqual(kinds.map((kind) => [portNames[kind], entry.ports[kind]]));
    const fromSecret = (container.env ?? []).filter((e) => e.valueFrom?.secretKeyRef).map((e) => e.valueFrom!.secretKeyRef!.key);
    expect(fromSecret).toEqual(secretKeysOf(entry));
    const fromPod = Object.fromEntries((container.env ?? []).filter((e) => e.valueFrom?.fieldRef).map((e) => [e.name, e.valueFrom!.fieldRef!.fieldPath]));
    expect(fromPod).toEqual({ K8S_POD_NAME: 'metadata.name', K8S_NAMESPACE_NAME: 'metadata.namespace', K8S_NODE_NAME: 'spec.nodeName' });
    const readyPort = container.ports?.find((port) => port.containerPort === readinessPort(entry, entry.ports))?.name;
    expect(container.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: readyPort });
    expect(container.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: readyPort });
    // The health server is bound after every listener; the kubelet's gRPC probe could not pass mutual TLS.
    expect(container.startupProbe?.httpGet).toEqual({ path: '/healthz', port: readyPort });
    const grpcTls = entry.ports.grpc !== undefined || callsOf(entry, serviceList).some((call) => call.port === 'grpc');
    const literal = Object.fromEntries((container.env ?? []).filter((e) => e.value !== undefined).map((e) => [e.name, e.value]));
    if (grpcTls) {
      expect(literal, 'its gRPC identity, from the mounted Secret').toMatchObject({ GRPC_TLS_CA: '/etc/esim/grpc/ca.crt', GRPC_TLS_CERT: '/etc/esim/grpc/tls.crt', GRPC_TLS_KEY: '/etc/esim/grpc/tls.key' });
      expect(container.volumeMounts).toContainEqual({ name: 'grpc-tls', mountPath: '/etc/esim/grpc', readOnly: true });
    } else expect(literal).not.toHaveProperty('GRPC_TLS_CERT');
  });

  it.each(serviceList.map((entry) => [entry.name, entry] as const))('when %s is reached in the cluster, then one ClusterIP Service carries every port, headless when it serves gRPC, and none is public', (name, entry) => {
    const own = k8sServices.filter((service) => service.spec?.selector?.['app.kubernetes.io/name'] === name);
    expect(own.map((service) => service.metadata?.name)).toEqual([name]);
    const [internal] = own;
    expect(internal?.spec?.type).toBe('ClusterIP');
    expect(internal?.spec?.clusterIP, 'headless: gRPC clients resolve every pod and balance per call').toBe(entry.ports.grpc !== undefined ? 'None' : undefined);
    expect(internal?.spec?.ports?.map((port) => port.port)).toEqual(Object.values(entry.ports));
    const grpcPort = internal?.spec?.ports?.find((port) => port.name === 'grpc');
    if (grpcPort) expect(grpcPort.appProtocol).toBe('grpc');
  });

  it('when services look each other up, then the ConfigMap holds every address at its in-cluster DNS name', () => {
    const addresses = addressEnv(Object.fromEntries(serviceList.map((entry) => [entry.name, entry.ports])), (name) => name);
    expect(Object.keys(addresses).length).toBeGreaterThan(0);
    expect(configMap.data).toMatchObject(addresses);
  });

  it('when a Deployment runs a service, then it is labelled, runs the shared image as the platform ServiceAccount without a token', () => {
    const images = new Set<string>();
    for (const deployment of deployments) {
      const name = deployment.metadata!.name!;
      const labels = { 'app.kubernetes.io/name': name, 'app.kubernetes.io/part-of': 'esim-platform' };
      expect(deployment.metadata?.labels, name).toMatchObject(labels);
      expect(deployment.spec?.template.metadata?.labels, name).toMatchObject(labels);
      expect(deployment.spec?.selector.matchLabels, name).toEqual({ 'app.kubernetes.io/name': name });
      const pod = deployment.spec!.template.spec!;
      expect(pod.serviceAccountName, name).toBe('esim-platform');
      expect(pod.automountServiceAccountToken, name).toBe(false);
      const [container, ...others] = containersOf(deployment);
      expect(others, name).toEqual([]);
      expect(envValue(container!, 'SERVICE'), name).toBe(serviceOf(name));
      expect(envValue(container!, 'OTEL_SERVICE_NAME'), name).toBe(serviceOf(name));
      expect(container!.envFrom?.map((source) => source.configMapRef?.name), name).toContain(configMapName);
      images.add(container!.image ?? '');
    }
    expect([...images]).toEqual(kustomization.images?.map((image) => image.name));
    const account = manifests.find(({ doc }) => doc.kind === 'ServiceAccount')?.doc;
    expect(account).toMatchObject({ metadata: { name: 'esim-platform' }, automountServiceAccountToken: false });
  });

  it('when a pod is stopped, then preStop, the shutdown deadline and a margin fit in the grace period', () => {
    expect(configMap.data.SHUTDOWN_TIMEOUT_MS).toBe(String(shutdown.deadlineMs));
    for (const deployment of deployments) {
      const pod = deployment.spec!.template.spec!;
      const container = containersOf(deployment)[0]!;
      const preStop = Number(container.lifecycle?.preStop?.exec?.command?.at(-1));
      const grace = pod.terminationGracePeriodSeconds!;
      expect(preStop, deployment.metadata?.name).toBeGreaterThan(0);
      expect(preStop + shutdown.deadlineMs / 1000 + 5, `${deployment.metadata?.name}: at least 5 s to spare`).toBeLessThanOrEqual(grace);
    }
  });

  it('when a container runs, then it has honest probes on a declared port, and a memory request above its measured peak RSS', () => {
    expect(Object.keys(measuredPeakRssMiB).sort(), 'measure a new service (npm run bench -- --soak 10m) and add it to scripts/deploy/resources.ts').toEqual(listedNames);
    for (const deployment of deployments) {
      for (const container of containersOf(deployment)) {
        const where = `${deployment.metadata?.name}/${container.name}`;
        expect(container.readinessProbe?.httpGet?.path, where).toBe('/readyz');
        expect(container.livenessProbe?.httpGet?.path, where).toBe('/healthz');
        expect(container.startupProbe, `${where} startupProbe`).toBeDefined();
        for (const probe of [container.readinessProbe, container.livenessProbe, container.startupProbe]) {
          if (probe) expect(probeTargetsDeclaredPort(container, probe), `${where} probe port`).toBe(true);
        }
        for (const bound of ['requests', 'limits'] as const) {
          expect(container.resources?.[bound]?.cpu, `${where} ${bound}.cpu`).toBeDefined();
          expect(container.resources?.[bound]?.memory, `${where} ${bound}.memory`).toBeDefined();
        }
        const request = mebibytes(container.resources?.requests?.memory as string);
        expect(request, where).toBeGreaterThan(measuredPeakRssMiB[serviceOf(deployment.metadata!.name!)]!);
        expect(request, where).toBeLessThan(mebibytes(container.resources?.limits?.memory as string));
      }
    }
  });

  it('when a container runs, then it is non-root, unprivileged and writes only to emptyDirs on /app/var and /tmp', () => {
    for (const deployment of deployments) {
      const pod = deployment.spec!.template.spec!;
      expect(pod.securityContext?.runAsNonRoot, deployment.metadata?.name).toBe(true);
      expect(pod.securityContext?.runAsUser, deployment.metadata?.name).toBe(runAsUser);
      const emptyDirs = new Set((pod.volumes ?? []).filter((volume) => volume.emptyDir).map((volume) => volume.name));
      for (const container of containersOf(deployment)) {
        const where = `${deployment.metadata?.name}/${container.name}`;
        const security = container.securityContext;
        expect(security?.allowPrivilegeEscalation, where).toBe(false);
        expect(security?.readOnlyRootFilesystem, where).toBe(true);
        expect(security?.capabilities?.drop, where).toContain('ALL');
        expect(security?.capabilities?.add ?? [], where).toEqual([]);
        const writable = (container.volumeMounts ?? []).filter((mount) => emptyDirs.has(mount.name)).map((mount) => mount.mountPath);
        expect(writable.sort(), where).toEqual(['/app/var', '/tmp']);
      }
    }
  });

  it('when a container reads a secret, then the key is documented in secrets.example.yaml and every documented key is used', () => {
    expect(secretExample.metadata.name).toBe(secretName);
    const documented = Object.keys(secretExample.stringData);
    const used = new Set<string>();
    for (const deployment of deployments) {
      for (const container of containersOf(deployment)) {
        for (const entry of container.env ?? []) {
          const ref = entry.valueFrom?.secretKeyRef;
          if (!ref) continue;
          expect(ref.name, `${deployment.metadata?.name} ${entry.name}`).toBe(secretName);
          expect(documented, `${deployment.metadata?.name} ${entry.name}`).toContain(ref.key);
          used.add(ref.key);
        }
        expect(container.envFrom?.filter((source) => source.secretRef) ?? [], 'secrets by key only').toEqual([]);
      }
    }
    expect([...used].sort()).toEqual([...documented].sort());
  });

  it('when a Service routes traffic, then it selects an existing Deployment and targets ports its container declares', () => {
    for (const service of k8sServices) {
      const selected = deployments.filter((deployment) =>
        Object.entries(service.spec?.selector ?? {}).every(([key, label]) => deployment.spec?.template.metadata?.labels?.[key] === label),
      );
      expect(selected.length, service.metadata?.name).toBe(1);
      const declared = containersOf(selected[0]!).flatMap((container) => container.ports ?? []);
      for (const port of service.spec?.ports ?? []) {
        const target = port.targetPort ?? port.port;
        expect(declared.some((p) => p.name === target || p.containerPort === target), `${service.metadata?.name}:${port.port}`).toBe(true);
      }
    }
  });

  it("when the network policies are derived from the services' configs, then the calls found are the ones the code makes", () => {
    // A spot check of the derivation the policies rest on, against what the code is known to dial.
    const calls = (name: string) =>
      callsOf(serviceList.find((entry) => entry.name === name)!, serviceList)
        .map((call) => `${call.target.name}:${call.port}`)
        .sort();
    // Every gRPC API but provisioning's, which only orders calls (revoking a cancelled order's bundle, §13).
    expect(calls('gateway')).toEqual(serviceList.filter((entry) => entry.ports.grpc !== undefined && entry.name !== 'provisioning').map((entry) => `${entry.name}:grpc`).sort());
    expect(calls('orders')).toEqual(['catalog:grpc', 'provisioning:grpc', 'wallet:grpc']);
    // The simulator POSTs the supplier's notifications to the gateway's public port (SUPPLIER_NOTIFICATION_URL).
    expect(calls('supplier-sim')).toEqual(['gateway:http', 'provisioning:es2']);
    expect(calls('provisioning')).toEqual(['supplier-sim:http']);
    expect(calls('webhooks')).toEqual(['partners:grpc']);
    expect(calls('catalog')).toEqual([]);
  });
});

describe("test mode's own capacity (contract §14)", () => {
  const literalEnv = (name: string) =>
    Object.fromEntries((containersOf(deploymentNamed(name)!)[0]!.env ?? []).filter((e) => e.value !== undefined).map((e) => [e.name, e.value!]));
  const entryOf = (name: string) => serviceList.find((entry) => entry.name === name)!;
  /** Where a replica's gRPC API is found in the cluster: its own Service. */
  const replicaAddress = (service: string) => `${testReplicaName(service)}:${entryOf(service).ports.grpc}`;

  it('when the launcher names the services test mode replicates, then each is in the service list with a gRPC API', () => {
    expect(testModeServices.length).toBeGreaterThan(0);
    for (const service of testModeServices) expect(entryOf(service)?.ports.grpc, service).toBeDefined();
  });

  it.each(testModeServices.map((service) => [service] as const))(
    'when %s is replicated for test mode, then its -test Deployment runs the same service, image, account, secrets and gRPC identity, on the test lane alone, calling the replicas',
    (service) => {
      const live = deploymentNamed(service)!;
      const replica = deploymentNamed(testReplicaName(service));
      expect(replica, `${testReplicaName(service)} Deployment`).toBeDefined();
      const [liveContainer] = containersOf(live);
      const [container] = containersOf(replica!);
      expect(literalEnv(testReplicaName(service))).toMatchObject({ SERVICE: service, OTEL_SERVICE_NAME: service, EVENT_LANES: 'test' });
      expect(literalEnv(service).EVENT_LANES, `${service} serves live alone`).toBe('live');
      // Every replicated gRPC API at its replica, so a test order never reaches a live pod of the saga.
      for (const target of testModeServices) expect(literalEnv(testReplicaName(service))[`${constantCase(target)}_ADDR`], `${service}-test → ${target}`).toBe(replicaAddress(target));
      expect(container!.image).toBe(liveContainer!.image);
      expect(container!.args ?? container!.command).toEqual(liveContainer!.args ?? liveContainer!.command);
      expect(container!.ports).toEqual(liveContainer!.ports);
      const pod = replica!.spec!.template.spec!;
      expect(pod.serviceAccountName).toBe(live.spec!.template.spec!.serviceAccountName);
      const secretRefs = (c: typeof container) => (c!.env ?? []).filter((e) => e.valueFrom?.secretKeyRef).map((e) => [e.name, e.valueFrom!.secretKeyRef!.key]);
      expect(secretRefs(container)).toEqual(secretRefs(liveContainer));
      // Its certificate is the service's: callers check the common name, not the address they dialled.
      expect(pod.volumes?.find((volume) => volume.name === 'grpc-tls')?.secret?.secretName).toBe(`${service}-grpc-tls`);
      for (const variable of ['GRPC_TLS_CA', 'GRPC_TLS_CERT', 'GRPC_TLS_KEY']) expect(envValue(container!, variable), variable).toBe(envValue(liveContainer!, variable));
    },
  );

  it.each(testModeServices.map((service) => [service] as const))('when %s-test runs, then it is one pod, asking little CPU and capped below the live limit, with the live memory', (service) => {
    const live = deploymentNamed(service)!;
    const replica = deploymentNamed(testReplicaName(service))!;
    expect(replica.spec?.replicas).toBe(1);
    const [liveResources, resources] = [live, replica].map((d) => containersOf(d)[0]!.resources!);
    expect(millicores(resources!.limits?.cpu as string)).toBeGreaterThan(0);
    expect(millicores(resources!.limits?.cpu as string)).toBeLessThan(millicores(liveResources!.limits?.cpu as string));
    expect(millicores(resources!.requests?.cpu as string)).toBeLessThanOrEqual(millicores(liveResources!.requests?.cpu as string));
    expect(resources!.requests?.memory).toBe(liveResources!.requests?.memory);
    expect(resources!.limits?.memory).toBe(liveResources!.limits?.memory);
    expect(replica.spec?.template.metadata?.labels?.['esim-platform/lane']).toBe('test');
    expect(live.spec?.template.metadata?.labels?.['esim-platform/lane']).toBe('live');
  });

  it.each(testModeServices.map((service) => [service] as const))('when the gateway or a replica dials %s-test, then a headless Service of its own answers on the same ports', (service) => {
    const live = k8sServices.find((s) => s.metadata?.name === service)!;
    const replica = k8sServices.find((s) => s.metadata?.name === testReplicaName(service));
    expect(replica?.spec?.clusterIP).toBe('None');
    expect(replica?.spec?.selector).toEqual({ 'app.kubernetes.io/name': testReplicaName(service) });
    expect(replica?.spec?.ports).toEqual(live.spec?.ports);
  });

  it('when a service is not replicated, then it serves both lanes (no EVENT_LANES) and has no -test Deployment', () => {
    for (const entry of serviceList.filter((e) => !(testModeServices as readonly string[]).includes(e.name))) {
      expect(literalEnv(entry.name).EVENT_LANES, entry.name).toBeUndefined();
      expect(deploymentNamed(testReplicaName(entry.name)), testReplicaName(entry.name)).toBeUndefined();
    }
  });

  it("when the gateway serves a test account, then it names the replicas of wallet, orders and webhooks, exactly the *_TEST_ADDR its config declares, and no other Deployment names any", () => {
    const declared = [...readFileSync(join(root, 'services/gateway/src/config.ts'), 'utf8').matchAll(/\b([A-Z_]+_TEST_ADDR)\b/g)].map((m) => m[1]!);
    const testAddresses = (name: string) => Object.fromEntries(Object.entries(literalEnv(name)).filter(([key]) => key.endsWith('_TEST_ADDR')));
    expect(testAddresses('gateway')).toEqual({ WALLET_TEST_ADDR: replicaAddress('wallet'), ORDERS_TEST_ADDR: replicaAddress('orders'), WEBHOOKS_TEST_ADDR: replicaAddress('webhooks') });
    expect(Object.keys(testAddresses('gateway')).sort()).toEqual([...new Set(declared)].sort());
    for (const deployment of deployments.filter((d) => d.metadata?.name !== 'gateway')) expect(testAddresses(deployment.metadata!.name!), deployment.metadata?.name).toEqual({});
  });

  it('when npm start and Kubernetes run test mode, then each process gets the same variables beyond its service\'s own', () => {
    // The launcher's topology (withTestModeReplicas), with replica ports apart from the services' so every address differs.
    const ports: Ports = { ...defaultPorts };
    for (const service of testModeServices) {
      ports[testReplicaName(service)] = Object.fromEntries(Object.entries(defaultPorts[service]!).map(([kind, port]) => [kind, port! + 1000]));
    }
    const plain = serviceSpecs(ports);
    const withReplicas = serviceSpecs(ports, {}, {});
    const portNamesSet = new Set<string>(Object.values(portVariables));
    const launcherExtras = (name: string) => {
      const spec = withReplicas.find((s) => s.name === name)!;
      const own = plain.find((s) => s.name === serviceOf(name))!;
      return Object.keys(spec.env).filter((key) => !portNamesSet.has(key) && spec.env[key] !== own.env[key]).sort();
    };
    // In Kubernetes the shared addresses come from the ConfigMap; what a Deployment adds is literal.
    const ownKeys = new Set(['SERVICE', 'OTEL_SERVICE_NAME', 'GRPC_TLS_CA', 'GRPC_TLS_CERT', 'GRPC_TLS_KEY', ...portNamesSet]);
    const k8sExtras = (name: string) => Object.keys(literalEnv(name)).filter((key) => !ownKeys.has(key)).sort();
    expect(withReplicas.map((s) => s.name).sort()).toEqual(deployments.map((d) => d.metadata!.name!).sort());
    for (const { name } of withReplicas) expect(k8sExtras(name), name).toEqual(launcherExtras(name));
  });
});
