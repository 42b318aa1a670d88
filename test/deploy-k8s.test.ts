// Protects deploy/k8s from drifting away from the services and from the Kubernetes schema, offline, without a cluster.
import { describe, it, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { Deployment, type IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import { k8sDir, secretName, configMapName, runAsUser, type Json, serviceNames, onPath, unknownKeys, kinds, kindOf, kustomization, resourceFiles, manifestFiles, manifests, deployments, services, configMap, secretExample, containersOf, envValue, probeTargetsDeclaredPort } from './support/deployFiles.js';

describe('the unknown-key check', () => {
  const fixture = (): Json => structuredClone(manifests.find(({ doc }) => kindOf(doc) === 'apps/v1/Deployment')!.doc);

  it('when a container key is misspelled, then it names the key and its path', () => {
    const deployment = fixture();
    const container = ((deployment.spec as Json).template as Json).spec as { containers: Json[] };
    const first = container.containers[0]!;
    first.readinesProbe = first.readinessProbe;
    delete first.readinessProbe;

    expect(unknownKeys(deployment, kinds['apps/v1/Deployment']!.shape)).toEqual([
      'spec.template.spec.containers[0].readinesProbe: unknown key',
    ]);
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

describe('Kubernetes manifests', () => {
  it('when a document is parsed, then its kind is one this test knows how to validate', () => {
    const unknown = manifests.filter(({ doc }) => !(kindOf(doc) in kinds)).map(({ file, doc }) => `${file}: ${kindOf(doc)}`);
    expect(unknown).toEqual([]);
  });

  it.each(manifests.map(({ file, doc }) => [`${file} ${String(doc.kind)}/${String((doc.metadata as Json | undefined)?.name)}`, doc] as const))(
    'when %s is validated, then it matches the Kubernetes schema and holds no unknown keys',
    (_name, doc) => {
      const kind = kinds[kindOf(doc)];
      expect(kind, kindOf(doc)).toBeDefined();
      expect(() => kind!.validate(doc)).not.toThrow();
      expect(unknownKeys(doc, kind!.shape)).toEqual([]);
    },
  );

  it('when kustomization.yaml lists resources, then each exists and every manifest but the secret example is listed', () => {
    for (const file of resourceFiles) expect(existsSync(join(k8sDir, file)), file).toBe(true);
    expect([...resourceFiles].sort()).toEqual(manifestFiles.filter((file) => file !== 'secrets.example.yaml'));
    expect(resourceFiles).not.toContain('secrets.example.yaml');
    expect(kustomization.namespace).toBe('esim');
  });

  it('when a folder exists in services/, then it has a Deployment in its own listed file', () => {
    for (const name of serviceNames()) {
      expect(resourceFiles, `${name}.yaml in kustomization.yaml`).toContain(`${name}.yaml`);
      const home = manifests.find(({ doc }) => kindOf(doc) === 'apps/v1/Deployment' && (doc.metadata as Json).name === name);
      expect(home?.file, `Deployment ${name}`).toBe(`${name}.yaml`);
    }
    expect(deployments.map((deployment) => deployment.metadata?.name).sort()).toEqual(serviceNames());
  });

  it('when a Deployment runs a service, then it selects its service by name, is labelled and runs the shared image', () => {
    const images = new Set<string>();
    for (const deployment of deployments) {
      const name = deployment.metadata!.name!;
      const labels = { 'app.kubernetes.io/name': name, 'app.kubernetes.io/part-of': 'esim-platform' };
      expect(deployment.metadata?.labels, name).toMatchObject(labels);
      expect(deployment.spec?.template.metadata?.labels, name).toMatchObject(labels);
      expect(deployment.spec?.selector.matchLabels, name).toEqual({ 'app.kubernetes.io/name': name });
      expect(deployment.spec?.replicas ?? 1, name).toBeGreaterThanOrEqual(1);
      expect(deployment.spec?.template.spec?.terminationGracePeriodSeconds, name).toBe(30);
      const [container, ...others] = containersOf(deployment);
      expect(others, name).toEqual([]);
      expect(envValue(container!, 'SERVICE'), name).toBe(name);
      expect(envValue(container!, 'OTEL_SERVICE_NAME'), name).toBe(name);
      expect(container!.envFrom?.map((source) => source.configMapRef?.name), name).toContain(configMapName);
      images.add(container!.image ?? '');
    }
    expect([...images]).toEqual(kustomization.images?.map((image) => image.name));
    expect(configMap?.metadata.name).toBe(configMapName);
  });

  it('when a container runs, then it has honest probes on a declared port and requests and limits', () => {
    for (const deployment of deployments) {
      for (const container of containersOf(deployment)) {
        const where = `${deployment.metadata?.name}/${container.name}`;
        expect(container.readinessProbe?.httpGet?.path, where).toBe('/readyz');
        expect(container.livenessProbe?.httpGet?.path, where).toBe('/healthz');
        for (const probe of [container.readinessProbe, container.livenessProbe, container.startupProbe]) {
          if (probe) expect(probeTargetsDeclaredPort(container, probe), `${where} probe port`).toBe(true);
        }
        for (const bound of ['requests', 'limits'] as const) {
          expect(container.resources?.[bound]?.cpu, `${where} ${bound}.cpu`).toBeDefined();
          expect(container.resources?.[bound]?.memory, `${where} ${bound}.memory`).toBeDefined();
        }
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
        expect(security?.runAsNonRoot ?? pod.securityContext?.runAsNonRoot, where).toBe(true);
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
    expect(secretExample?.metadata.name).toBe(secretName);
    const documented = Object.keys(secretExample?.stringData ?? {});
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
    for (const service of services) {
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

  it.skipIf(!onPath('kubectl'))('when kubectl kustomize builds the base, then every object lands in the namespace with a pinned image', () => {
    const output = execFileSync('kubectl', ['kustomize', k8sDir], { encoding: 'utf8', timeout: 30_000 });
    const built = parseAllDocuments(output).map((doc) => doc.toJS() as Json);
    const namespaced = built.filter((doc) => doc.kind !== 'Namespace');
    expect(namespaced.every((doc) => (doc.metadata as Json).namespace === 'esim')).toBe(true);
    const builtDeployments = built.filter((doc) => doc.kind === 'Deployment').map((doc) => new Deployment(doc as unknown as IDeployment));
    expect(builtDeployments.map((deployment) => deployment.metadata?.name).sort()).toEqual(serviceNames());
    for (const deployment of builtDeployments) {
      expect(containersOf(deployment)[0]?.image, deployment.metadata?.name).toMatch(/^esim-platform:.+/);
    }
  });
});
