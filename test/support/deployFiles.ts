/** Parsing and shape checks shared by the deployment-file tests (Kubernetes, Compose, Dockerfile). */
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

export const root = fileURLToPath(new URL('../..', import.meta.url));
export const k8sDir = join(root, 'deploy/k8s');
export const secretName = 'esim-secrets';
export const configMapName = 'esim-config';
export const runAsUser = 10001;
export const startCommand = 'node --import tsx --import @esim/telemetry/register src/main.ts';

export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function readText(path: string): string {
  return readFileSync(join(root, path), 'utf8');
}

/** Every folder of services/ that is an npm workspace: each one is deployed. */
export function serviceNames(): string[] {
  return readdirSync(join(root, 'services'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(root, 'services', entry.name, 'package.json')))
    .map((entry) => entry.name)
    .sort();
}

export function parseDocuments(path: string): Json[] {
  return parseAllDocuments(readText(path)).map((doc, index) => {
    if (doc.errors.length > 0) throw new Error(`${path} document ${index}: ${doc.errors.map((e) => e.message).join('; ')}`);
    const value: unknown = doc.toJS();
    if (!isObject(value)) throw new Error(`${path} document ${index} is not a mapping`);
    return value;
  });
}

export function onPath(command: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && existsSync(join(dir, command)));
}

// ---------------------------------------------------------------------------
// Unknown-key check. kubernetes-models validates types and required fields but
// accepts misspelled keys (a `readinesProbe` is silently dropped by the API
// server), so each object level we use lists the keys it may hold.

export type Shape = 'value' | 'any' | readonly [Shape] | { readonly [key: string]: Shape };

export const value = 'value' as const;
export const mapOf = (shape: Shape): Shape => ({ '*': shape });
export const stringMap = mapOf(value);

/** Paths of keys `shape` does not allow, and of values of the wrong form. */
export function unknownKeys(node: unknown, shape: Shape, path = ''): string[] {
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

export const metadataShape: Shape = { name: value, namespace: value, labels: stringMap, annotations: stringMap };
export const probeShape: Shape = {
  httpGet: { path: value, port: value, scheme: value },
  initialDelaySeconds: value,
  periodSeconds: value,
  timeoutSeconds: value,
  successThreshold: value,
  failureThreshold: value,
};
export const containerShape: Shape = {
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
export const podSpecShape: Shape = {
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
export const kinds: Record<string, { validate: (obj: Json) => void; shape: Shape }> = {
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

export function kindOf(doc: Json): string {
  return `${String(doc.apiVersion)}/${String(doc.kind)}`;
}

// ---------------------------------------------------------------------------
// The manifests, read once.

export const kustomization = parse(readText('deploy/k8s/kustomization.yaml')) as {
  namespace?: string;
  resources?: string[];
  images?: { name: string; newName?: string; newTag?: string }[];
};
export const resourceFiles = kustomization.resources ?? [];
export const manifestFiles = readdirSync(k8sDir)
  .filter((file) => file.endsWith('.yaml') && file !== 'kustomization.yaml')
  .sort();
export const manifests = manifestFiles.flatMap((file) =>
  parseDocuments(`deploy/k8s/${file}`).map((doc) => ({ file, doc })),
);
export const applied = manifests.filter(({ file }) => resourceFiles.includes(file));
export const deployments = applied.filter(({ doc }) => kindOf(doc) === 'apps/v1/Deployment').map(({ doc }) => new Deployment(doc as unknown as IDeployment));
export const services = applied.filter(({ doc }) => kindOf(doc) === 'v1/Service').map(({ doc }) => new Service(doc as unknown as IService));
export const configMap = applied.find(({ doc }) => kindOf(doc) === 'v1/ConfigMap')?.doc as { metadata: { name: string }; data: Record<string, string> } | undefined;
export const secretExample = manifests.find(({ file }) => file === 'secrets.example.yaml')?.doc as
  | { metadata: { name: string }; stringData: Record<string, string> }
  | undefined;

export function containersOf(deployment: Deployment): IContainer[] {
  return deployment.spec?.template.spec?.containers ?? [];
}

export function envValue(container: IContainer, name: string): string | undefined {
  return container.env?.find((entry) => entry.name === name)?.value;
}

/** A probe's port must name or number one of the container's ports, or it probes nothing. */
export function probeTargetsDeclaredPort(container: IContainer, probe: IProbe | undefined): boolean {
  const port = probe?.httpGet?.port;
  return (container.ports ?? []).some((declared) => declared.name === port || declared.containerPort === port);
}

// ---------------------------------------------------------------------------
