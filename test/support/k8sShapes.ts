/**
 * The Kubernetes schema check of the deployment tests. kubernetes-models
 * (schemas of Kubernetes 1.27, the oldest version the manifests target)
 * validates types and required fields but accepts misspelled keys (a
 * `readinesProbe` is silently dropped by the API server), so each object
 * level we use also lists the keys it may hold. The Prometheus Operator's
 * kinds have no kubernetes-models class: their shape and required fields
 * are checked here.
 */
import { Deployment, type IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service, type IService } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';

export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

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

const selector: Shape = { matchLabels: stringMap };
export const metadataShape: Shape = { name: value, namespace: value, labels: stringMap, annotations: stringMap };
export const probeShape: Shape = {
  httpGet: { path: value, port: value, scheme: value },
  grpc: { port: value, service: value },
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
  restartPolicy: value,
  terminationGracePeriodSeconds: value,
  securityContext: {
    runAsNonRoot: value,
    runAsUser: value,
    runAsGroup: value,
    fsGroup: value,
    seccompProfile: { type: value },
  },
  topologySpreadConstraints: [{ maxSkew: value, topologyKey: value, whenUnsatisfiable: value, labelSelector: selector, matchLabelKeys: value }],
  containers: [containerShape],
  volumes: [{ name: value, emptyDir: { medium: value, sizeLimit: value }, secret: { secretName: value, defaultMode: value, optional: value } }],
};
const podTemplateShape: Shape = { metadata: metadataShape, spec: podSpecShape };
const port: Shape = { protocol: value, port: value, endPort: value };
const policyPeer: Shape = {
  podSelector: selector,
  namespaceSelector: selector,
  ipBlock: { cidr: value, except: value },
};
const prometheusRule: Shape = {
  groups: [
    {
      name: value,
      interval: value,
      rules: [{ record: value, alert: value, expr: value, for: value, labels: stringMap, annotations: stringMap }],
    },
  ],
};

function requireFields(obj: Json, paths: string[]): void {
  for (const path of paths) {
    const found = path.split('.').reduce<unknown>((node, key) => (isObject(node) ? node[key] : undefined), obj);
    if (found === undefined) throw new Error(`${String(obj.kind)}: ${path} is required`);
  }
}

/** Each kind the manifests may hold: how to validate it and its allowed keys. */
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
        selector,
        strategy: { type: value, rollingUpdate: { maxSurge: value, maxUnavailable: value } },
        template: podTemplateShape,
      },
    },
  },
  'batch/v1/Job': {
    validate: (obj) => new Job(obj as never).validate(),
    shape: {
      apiVersion: value,
      kind: value,
      metadata: metadataShape,
      spec: { backoffLimit: value, activeDeadlineSeconds: value, ttlSecondsAfterFinished: value, template: podTemplateShape },
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
  'v1/ServiceAccount': {
    validate: (obj) => new ServiceAccount(obj).validate(),
    shape: { apiVersion: value, kind: value, metadata: metadataShape, automountServiceAccountToken: value },
  },
  'policy/v1/PodDisruptionBudget': {
    validate: (obj) => new PodDisruptionBudget(obj as never).validate(),
    shape: { apiVersion: value, kind: value, metadata: metadataShape, spec: { maxUnavailable: value, minAvailable: value, selector } },
  },
  'networking.k8s.io/v1/NetworkPolicy': {
    validate: (obj) => new NetworkPolicy(obj as never).validate(),
    shape: {
      apiVersion: value,
      kind: value,
      metadata: metadataShape,
      spec: {
        podSelector: { matchLabels: stringMap },
        policyTypes: value,
        ingress: [{ from: [policyPeer], ports: [port] }],
        egress: [{ to: [policyPeer], ports: [port] }],
      },
    },
  },
  'networking.k8s.io/v1/Ingress': {
    validate: (obj) => new Ingress(obj as never).validate(),
    shape: {
      apiVersion: value,
      kind: value,
      metadata: metadataShape,
      spec: {
        ingressClassName: value,
        tls: [{ hosts: value, secretName: value }],
        rules: [{ host: value, http: { paths: [{ path: value, pathType: value, backend: { service: { name: value, port: { name: value, number: value } } } }] } }],
      },
    },
  },
  'autoscaling/v2/HorizontalPodAutoscaler': {
    validate: (obj) => new HorizontalPodAutoscaler(obj as never).validate(),
    shape: {
      apiVersion: value,
      kind: value,
      metadata: metadataShape,
      spec: {
        scaleTargetRef: { apiVersion: value, kind: value, name: value },
        minReplicas: value,
        maxReplicas: value,
        metrics: [{ type: value, resource: { name: value, target: { type: value, averageUtilization: value } } }],
        behavior: { scaleDown: { stabilizationWindowSeconds: value }, scaleUp: { stabilizationWindowSeconds: value } },
      },
    },
  },
  'monitoring.coreos.com/v1/PodMonitor': {
    validate: (obj) => requireFields(obj, ['metadata.name', 'spec.selector.matchLabels', 'spec.podMetricsEndpoints']),
    shape: {
      apiVersion: value,
      kind: value,
      metadata: metadataShape,
      spec: { selector, podMetricsEndpoints: [{ port: value, path: value, interval: value }] },
    },
  },
  'monitoring.coreos.com/v1/PrometheusRule': {
    validate: (obj) => requireFields(obj, ['metadata.name', 'spec.groups']),
    shape: { apiVersion: value, kind: value, metadata: metadataShape, spec: prometheusRule },
  },
};

export function kindOf(doc: Json): string {
  return `${String(doc.apiVersion)}/${String(doc.kind)}`;
}
