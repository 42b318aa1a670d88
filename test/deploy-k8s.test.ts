// Protects the generated kustomize base (deploy/k8s/base) from drifting away from the service list, the services' configs and the Kubernetes schema, offline, without a cluster.
import { describe, it, expect } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { addressEnv, portEnv, readinessPort, services as serviceList, type PortKind } from '../scripts/launcher/services.js';
import { callsOf } from '../scripts/deploy/calls.js';
import { measuredPeakRssMiB } from '../scripts/deploy/resources.js';
import { portNames, secretKeysOf, shutdown } from '../scripts/deploy/settings.js';
import {
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
const mebibytes = (quantity: string | undefined) => Number(/^(\d+)Mi$/.exec(quantity ?? '')?.[1] ?? NaN);

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

  it('when an entry is in the service list, then it has a Deployment in its own listed file, and nothing else does', () => {
    for (const name of listedNames) {
      expect(resourceFiles, `${name}.yaml in kustomization.yaml`).toContain(`${name}.yaml`);
      const home = manifests.find(({ doc }) => kindOf(doc) === 'apps/v1/Deployment' && (doc.metadata as Json).name === name);
      expect(home?.file, `Deployment ${name}`).toBe(`${name}.yaml`);
    }
    expect(deployments.map((deployment) => deployment.metadata?.name).sort()).toEqual(listedNames);
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
      expect(envValue(container!, 'SERVICE'), name).toBe(name);
      expect(envValue(container!, 'OTEL_SERVICE_NAME'), name).toBe(name);
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
        expect(request, where).toBeGreaterThan(measuredPeakRssMiB[deployment.metadata!.name!]!);
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
