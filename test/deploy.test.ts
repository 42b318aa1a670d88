// Protects the deployment files (Dockerfile, docker-compose.yml, deploy/k8s) from drifting away from the services and from the Kubernetes schema, offline, without Docker or a cluster.
import { describe, it, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, parseAllDocuments } from 'yaml';
import { Deployment, type IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service, type IService } from 'kubernetes-models/v1/Service';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IProbe } from 'kubernetes-models/v1/Probe';

const root = fileURLToPath(new URL('..', import.meta.url));
const k8sDir = join(root, 'deploy/k8s');
const secretName = 'esim-secrets';
const configMapName = 'esim-config';
const runAsUser = 10001;
const startCommand = 'node --import tsx --import @esim/telemetry/register src/main.ts';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readText(path: string): string {
  return readFileSync(join(root, path), 'utf8');
}

/** Every folder of services/ that is an npm workspace: each one is deployed. */
function serviceNames(): string[] {
  return readdirSync(join(root, 'services'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(root, 'services', entry.name, 'package.json')))
    .map((entry) => entry.name)
    .sort();
}

function parseDocuments(path: string): Json[] {
  return parseAllDocuments(readText(path)).map((doc, index) => {
    if (doc.errors.length > 0) throw new Error(`${path} document ${index}: ${doc.errors.map((e) => e.message).join('; ')}`);
    const value: unknown = doc.toJS();
    if (!isObject(value)) throw new Error(`${path} document ${index} is not a mapping`);
    return value;
  });
}

function onPath(command: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && existsSync(join(dir, command)));
}

// ---------------------------------------------------------------------------
// Unknown-key check. kubernetes-models validates types and required fields but
// accepts misspelled keys (a `readinesProbe` is silently dropped by the API
// server), so each object level we use lists the keys it may hold.

type Shape = 'value' | 'any' | readonly [Shape] | { readonly [key: string]: Shape };

const value = 'value' as const;
const mapOf = (shape: Shape): Shape => ({ '*': shape });
const stringMap = mapOf(value);

/** Paths of keys `shape` does not allow, and of values of the wrong form. */
function unknownKeys(node: unknown, shape: Shape, path = ''): string[] {
  if (shape === 'any') return [];
  if (shape === 'value') {
    const nested = isObject(node) || (Array.isArray(node) && node.some((item) => isObject(item) || Array.isArray(item)));
    return nested ? [`${path}: expected a value, found a structure`] : [];
  }
  if (Array.isArray(shape)) {
    if (!Array.isArray(node)) return [`${path}: expected a list`];
    const [itemShape] = shape as readonly [Shape];
    return node.flatMap((item, index) => unknownKeys(item, itemShape, `${path}[${index}]`));
  }
  if (!isObject(node)) return [`${path}: expected a mapping`];
  const keyed = shape as { readonly [key: string]: Shape };
  return Object.entries(node).flatMap(([key, child]) => {
    const childShape = keyed[key] ?? keyed['*'];
    const childPath = path === '' ? key : `${path}.${key}`;
    return childShape === undefined ? [`${childPath}: unknown key`] : unknownKeys(child, childShape, childPath);
  });
}

const metadataShape: Shape = { name: value, namespace: value, labels: stringMap, annotations: stringMap };
const probeShape: Shape = {
  httpGet: { path: value, port: value, scheme: value },
  initialDelaySeconds: value,
  periodSeconds: value,
  timeoutSeconds: value,
  successThreshold: value,
  failureThreshold: value,
};
const containerShape: Shape = {
  name: value,
  image: value,
  imagePullPolicy: value,
  command: value,
  args: value,
  ports: [{ name: value, containerPort: value, protocol: value }],
  envFrom: [{ configMapRef: { name: value, optional: value }, secretRef: { name: value, optional: value }, prefix: value }],
  env: [
    {
      name: value,
      value: value,
      valueFrom: {
        secretKeyRef: { name: value, key: value, optional: value },
        configMapKeyRef: { name: value, key: value, optional: value },
        fieldRef: { fieldPath: value },
      },
    },
  ],
  startupProbe: probeShape,
  livenessProbe: probeShape,
  readinessProbe: probeShape,
  lifecycle: { preStop: { exec: { command: value } } },
  resources: { requests: stringMap, limits: stringMap },
  securityContext: {
    allowPrivilegeEscalation: value,
    privileged: value,
    readOnlyRootFilesystem: value,
    runAsNonRoot: value,
    runAsUser: value,
    runAsGroup: value,
    capabilities: { drop: value, add: value },
    seccompProfile: { type: value },
  },
  volumeMounts: [{ name: value, mountPath: value, readOnly: value, subPath: value }],
};
const podSpecShape: Shape = {
  automountServiceAccountToken: value,
  enableServiceLinks: value,
  serviceAccountName: value,
  terminationGracePeriodSeconds: value,
  securityContext: {
    runAsNonRoot: value,
    runAsUser: value,
    runAsGroup: value,
    fsGroup: value,
    seccompProfile: { type: value },
  },
  topologySpreadConstraints: [
    { maxSkew: value, topologyKey: value, whenUnsatisfiable: value, labelSelector: { matchLabels: stringMap } },
  ],
  containers: [containerShape],
  volumes: [{ name: value, emptyDir: { medium: value, sizeLimit: value } }],
};

/** Each kind the manifests may hold: its kubernetes-models class and its allowed keys. */
const kinds: Record<string, { validate: (obj: Json) => void; shape: Shape }> = {
  'apps/v1/Deployment': {
    validate: (obj) => new Deployment(obj as unknown as IDeployment).validate(),
    shape: {
      apiVersion: value,
      kind: value,
      metadata: metadataShape,
      spec: {
        replicas: value,
        revisionHistoryLimit: value,
        selector: { matchLabels: stringMap },
        strategy: { type: value, rollingUpdate: { maxSurge: value, maxUnavailable: value } },
        template: { metadata: metadataShape, spec: podSpecShape },
      },
    },
  },
  'v1/Service': {
    validate: (obj) => new Service(obj as unknown as IService).validate(),
    shape: {
      apiVersion: value,
      kind: value,
      metadata: metadataShape,
      spec: {
        type: value,
        clusterIP: value,
        selector: stringMap,
        ports: [{ name: value, port: value, targetPort: value, protocol: value, appProtocol: value }],
      },
    },
  },
  'v1/ConfigMap': {
    validate: (obj) => new ConfigMap(obj).validate(),
    shape: { apiVersion: value, kind: value, metadata: metadataShape, data: stringMap },
  },
  'v1/Namespace': {
    validate: (obj) => new Namespace(obj).validate(),
    shape: { apiVersion: value, kind: value, metadata: metadataShape },
  },
  'v1/Secret': {
    validate: (obj) => new Secret(obj).validate(),
    shape: { apiVersion: value, kind: value, metadata: metadataShape, type: value, data: stringMap, stringData: stringMap },
  },
};

function kindOf(doc: Json): string {
  return `${String(doc.apiVersion)}/${String(doc.kind)}`;
}

// ---------------------------------------------------------------------------
// The manifests, read once.

const kustomization = parse(readText('deploy/k8s/kustomization.yaml')) as {
  namespace?: string;
  resources?: string[];
  images?: { name: string; newName?: string; newTag?: string }[];
};
const resourceFiles = kustomization.resources ?? [];
const manifestFiles = readdirSync(k8sDir)
  .filter((file) => file.endsWith('.yaml') && file !== 'kustomization.yaml')
  .sort();
const manifests = manifestFiles.flatMap((file) =>
  parseDocuments(`deploy/k8s/${file}`).map((doc) => ({ file, doc })),
);
const applied = manifests.filter(({ file }) => resourceFiles.includes(file));
const deployments = applied.filter(({ doc }) => kindOf(doc) === 'apps/v1/Deployment').map(({ doc }) => new Deployment(doc as unknown as IDeployment));
const services = applied.filter(({ doc }) => kindOf(doc) === 'v1/Service').map(({ doc }) => new Service(doc as unknown as IService));
const configMap = applied.find(({ doc }) => kindOf(doc) === 'v1/ConfigMap')?.doc as { metadata: { name: string }; data: Record<string, string> } | undefined;
const secretExample = manifests.find(({ file }) => file === 'secrets.example.yaml')?.doc as
  | { metadata: { name: string }; stringData: Record<string, string> }
  | undefined;

function containersOf(deployment: Deployment): IContainer[] {
  return deployment.spec?.template.spec?.containers ?? [];
}

function envValue(container: IContainer, name: string): string | undefined {
  return container.env?.find((entry) => entry.name === name)?.value;
}

/** A probe's port must name or number one of the container's ports, or it probes nothing. */
function probeTargetsDeclaredPort(container: IContainer, probe: IProbe | undefined): boolean {
  const port = probe?.httpGet?.port;
  return (container.ports ?? []).some((declared) => declared.name === port || declared.containerPort === port);
}

// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------

interface ComposeService {
  image?: string;
  build?: { context?: string; args?: Record<string, string> };
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  healthcheck?: { test?: string[] };
  depends_on?: Record<string, { condition?: string }>;
}

const composeText = readText('docker-compose.yml');
const compose = parse(composeText, { merge: true }) as { services: Record<string, ComposeService> } & Json;

/** `${VAR}` references without a default, and bare `$VAR` ones, which Compose fills from the caller's shell. */
function undefinedComposeVariables(text: string): string[] {
  const withoutComments = text
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n')
    .replaceAll('$$', '');
  const braced = [...withoutComments.matchAll(/\$\{([^}]*)\}/g)]
    .filter((match) => !/^[A-Za-z_][A-Za-z0-9_]*:?-/.test(match[1]!))
    .map((match) => match[0]);
  const bare = [...withoutComments.matchAll(/\$[A-Za-z_][A-Za-z0-9_]*/g)].map((match) => match[0]);
  return [...braced, ...bare];
}

const composeServiceShape: Shape = {
  image: value,
  build: { context: value, dockerfile: value, args: stringMap },
  command: value,
  restart: value,
  environment: stringMap,
  ports: value,
  volumes: value,
  healthcheck: { test: value, interval: value, timeout: value, retries: value, start_period: value },
  depends_on: mapOf({ condition: value, restart: value, required: value }),
};

describe('docker-compose.yml', () => {
  it('when a variable is referenced without a default, then the check reports it', () => {
    expect(undefinedComposeVariables('a: ${SET:-x}\nb: ${UNSET}\nc: $BARE\nd: $${ESCAPED}\n# e: ${COMMENT}\n')).toEqual([
      '${UNSET}',
      '$BARE',
    ]);
  });

  it('when Compose interpolates, then every variable it references has a default', () => {
    expect(undefinedComposeVariables(composeText)).toEqual([]);
  });

  it('when a service is declared, then it holds only known keys', () => {
    const topLevel = Object.keys(compose).filter((key) => !key.startsWith('x-'));
    expect(topLevel.sort()).toEqual(['services', 'volumes']);
    for (const [name, service] of Object.entries(compose.services)) {
      expect(unknownKeys(service, composeServiceShape, name)).toEqual([]);
    }
  });

  it('when a folder exists in services/, then Compose builds it with SERVICE set and waits for healthy infrastructure', () => {
    for (const name of serviceNames()) {
      const service = compose.services[name];
      expect(service, name).toBeDefined();
      expect(service!.build?.args?.SERVICE, name).toBe(name);
      expect(service!.environment?.OTEL_SERVICE_NAME, name).toBe(name);
      for (const dependency of ['postgres', 'redis', 'nats']) {
        expect(service!.depends_on?.[dependency]?.condition, `${name} → ${dependency}`).toBe('service_healthy');
      }
    }
  });

  it('when a service has a healthcheck, then it asks /readyz on a port the service listens on', () => {
    for (const name of serviceNames()) {
      const service = compose.services[name]!;
      const env = service.environment ?? {};
      const ports = [env.PORT, env.ADMIN_PORT, env.HEALTH_PORT].filter((port) => port !== undefined);
      const test = (service.healthcheck?.test ?? []).join(' ');
      expect(ports.some((port) => test.includes(`127.0.0.1:${port}/readyz`)), `${name}: ${test}`).toBe(true);
    }
  });

  it('when a Deployment sets a variable, then the Compose service sets it too, with the same literal value', () => {
    for (const deployment of deployments) {
      const name = deployment.metadata!.name!;
      const env = compose.services[name]?.environment ?? {};
      for (const entry of containersOf(deployment)[0]?.env ?? []) {
        if (entry.name === 'SERVICE') continue; // the build arg sets it
        expect(env, `${name} ${entry.name}`).toHaveProperty(entry.name);
        if (entry.value !== undefined) expect(env[entry.name], `${name} ${entry.name}`).toBe(entry.value);
      }
    }
  });

  it('when the stack starts, then infrastructure is the pinned one, JetStream is on and the gateway and Mailpit are reachable', () => {
    const { postgres, redis, nats, mailpit, gateway, mailer } = compose.services;
    expect(postgres?.image).toBe('postgres:16');
    expect(redis?.image).toBe('redis:7');
    expect(nats?.image).toMatch(/^nats:2\.10(-|$)/);
    expect(nats?.command).toContain('-js');
    expect(mailpit?.image).toMatch(/^axllent\/mailpit:/);
    expect(gateway?.ports).toEqual(expect.arrayContaining(['8080:8080', '8081:8081']));
    expect(mailer?.environment?.SMTP_URL).toBe('smtp://mailpit:1025');
    for (const service of Object.values(compose.services)) expect(service.healthcheck?.test).toBeDefined();
  });

  it('when partners and mailer share encrypted data, then Compose gives them the same key', () => {
    expect(compose.services.partners?.environment?.DATA_ENCRYPTION_KEY).toBeDefined();
    expect(compose.services.mailer?.environment?.DATA_ENCRYPTION_KEY).toBe(compose.services.partners?.environment?.DATA_ENCRYPTION_KEY);
  });

  it.skipIf(!onPath('docker-compose'))('when docker-compose validates the file, then it accepts it', () => {
    expect(() => execFileSync('docker-compose', ['-f', join(root, 'docker-compose.yml'), 'config', '-q'], { stdio: 'pipe', timeout: 30_000 })).not.toThrow();
  });
});

// ---------------------------------------------------------------------------

describe('Dockerfile', () => {
  const dockerfile = readText('Dockerfile');
  const rootPackage = JSON.parse(readText('package.json')) as { dependencies?: Record<string, string> };

  it('when the image is built, then it is Node 24 slim, works in /app and runs as uid 10001', () => {
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:24-bookworm-slim$/m);
    expect(dockerfile).toMatch(/^WORKDIR \/app$/m);
    expect(dockerfile).toMatch(/^ARG SERVICE=/m);
    expect(dockerfile).toMatch(new RegExp(`^USER ${runAsUser}(:${runAsUser})?$`, 'm'));
  });

  it('when the image starts a service, then it runs the same command as that service\'s npm start', () => {
    expect(dockerfile).toContain(`cd \\"services/$SERVICE\\" && exec ${startCommand}`);
    for (const name of serviceNames()) {
      const pkg = JSON.parse(readText(`services/${name}/package.json`)) as { scripts?: Record<string, string> };
      expect(pkg.scripts?.start, name).toBe(startCommand);
    }
  });

  it('when dev dependencies are omitted from the image, then tsx is still a runtime dependency', () => {
    expect(dockerfile).toContain('npm ci --omit=dev');
    expect(rootPackage.dependencies?.tsx).toBeDefined();
  });

  it('when the build context is sent, then node_modules and var/ stay out of it', () => {
    const ignored = readText('.dockerignore').split('\n').map((line) => line.trim());
    expect(ignored).toEqual(expect.arrayContaining(['**/node_modules', '**/var']));
  });
});
