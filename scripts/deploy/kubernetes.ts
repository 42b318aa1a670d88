/** Per workload (a service, or test mode's replica of it): its Deployment and its in-cluster Service (deploy/k8s/base/<name>.yaml holds them with its policies). */
import { portEnv, readinessPort, type PortKind, type ServiceEntry } from '../launcher/services.js';
import { usesGrpc } from './calls.js';
import { workloadResources, type PodResources } from './resources.js';
import { laneLabel, replicasOf, workloadEnv, type Workload } from './workloads.js';
import { configMapName, imageName, indent, metricsPort, namespaceName, partOf, portNames, scalar, secretKeysOf, secretName, serviceAccountName, shutdown } from './settings.js';

export const labels = (name: string, extra: Record<string, string> = {}) =>
  Object.entries({ 'app.kubernetes.io/name': name, 'app.kubernetes.io/part-of': partOf, ...extra })
    .map(([key, value]) => `${key}: ${value}`)
    .join('\n');

export const kindsOf = (entry: ServiceEntry) => Object.keys(entry.ports) as PortKind[];

/** The downward API: the pod, namespace and node name become resource attributes of every span and metric (@esim/telemetry). */
const downwardEnv = [
  ['K8S_POD_NAME', 'metadata.name'],
  ['K8S_NAMESPACE_NAME', 'metadata.namespace'],
  ['K8S_NODE_NAME', 'spec.nodeName'],
] as const;

/** The container's env: who it is, its ports, where it runs, and its secrets by key; `overrides` replace literal values (MIGRATE=only). */
export function envList(entry: ServiceEntry, options: { literal?: Record<string, string>; secretKeys?: Partial<Record<string, string>> } = {}): string {
  const literal = { SERVICE: entry.name, OTEL_SERVICE_NAME: entry.name, ...portEnv(entry.ports), ...options.literal };
  const lines = Object.entries(literal).map(([name, value]) => `- name: ${name}\n  value: ${scalar(value)}`);
  for (const [name, fieldPath] of downwardEnv) lines.push(`- name: ${name}\n  valueFrom:\n    fieldRef:\n      fieldPath: ${fieldPath}`);
  for (const key of secretKeysOf(entry)) {
    const from = options.secretKeys?.[key] ?? key;
    lines.push(`- name: ${key}\n  valueFrom:\n    secretKeyRef:\n      name: ${secretName}\n      key: ${from}`);
  }
  return lines.join('\n');
}

/**
 * The service's gRPC identity (mutual TLS): a Secret of the cert-manager
 * Certificate `<name>-grpc-tls` (ca.crt, tls.crt, tls.key; docs/deployment.md),
 * mounted read-only; the files are re-read as cert-manager rotates them.
 */
export const grpcTlsMount = '/etc/esim/grpc';
export const grpcTlsSecret = (entry: ServiceEntry) => `${entry.name}-grpc-tls`;
export const grpcTlsEnv = {
  GRPC_TLS_CA: `${grpcTlsMount}/ca.crt`,
  GRPC_TLS_CERT: `${grpcTlsMount}/tls.crt`,
  GRPC_TLS_KEY: `${grpcTlsMount}/tls.key`,
};

function probes(entry: ServiceEntry): string {
  const ready = portNames[readinessPort(entry, entry.ports) === entry.ports.health ? 'health' : 'http'];
  // The health server starts after every listener (gRPC included) is bound. The kubelet's gRPC
  // probe cannot present a client certificate, and the gRPC port accepts no caller without one.
  const startup = `httpGet:\n  path: /healthz\n  port: ${ready}`;
  return `# Migrations may run (or be awaited, MIGRATE=off) at start, so startup gets more time than liveness.
startupProbe:
${indent(startup, 2)}
  periodSeconds: 2
  failureThreshold: 60
livenessProbe:
  httpGet:
    path: /healthz
    port: ${ready}
  periodSeconds: 10
  timeoutSeconds: 2
  failureThreshold: 3
readinessProbe:
  httpGet:
    path: /readyz
    port: ${ready}
  periodSeconds: 5
  # Longer than the service's own 2 s check timeout, so a slow dependency answers 503.
  timeoutSeconds: 3
  failureThreshold: 2`;
}

export function resourcesYaml(resources: PodResources): string {
  return `resources:
  requests:
    cpu: ${resources.requests.cpu}
    memory: ${resources.requests.memory}
  limits:
    cpu: ${scalar(resources.limits.cpu)}
    memory: ${resources.limits.memory}`;
}

/** Pod-level settings shared by the Deployments and the migration Jobs. */
export const podSecurity = `serviceAccountName: ${serviceAccountName}
# The services never call the Kubernetes API: no token in the pod.
automountServiceAccountToken: false
# Service links would add GATEWAY_PORT-style variables for every Service; nothing reads them.
enableServiceLinks: false
securityContext:
  runAsNonRoot: true
  runAsUser: 10001
  runAsGroup: 10001
  fsGroup: 10001
  seccompProfile:
    type: RuntimeDefault`;

export const containerSecurity = `securityContext:
  allowPrivilegeEscalation: false
  privileged: false
  readOnlyRootFilesystem: true
  capabilities:
    drop: ["ALL"]`;

/** The only writable paths: /app/var (.eml files when SMTP_URL is unset) and the OS temp directory. */
export const writableMounts = `volumeMounts:
  - name: var
    mountPath: /app/var
  - name: tmp
    mountPath: /tmp`;

export const writableVolumes = `volumes:
  - name: var
    emptyDir:
      sizeLimit: 64Mi
  - name: tmp
    emptyDir:
      sizeLimit: 64Mi`;

function spread(name: string): string {
  // Zones first, then nodes; best effort here, the production overlay makes nodes a hard rule.
  // pod-template-hash: a rollout's new pods spread among themselves, not around the old ones.
  return ['topology.kubernetes.io/zone', 'kubernetes.io/hostname']
    .map(
      (key) => `- maxSkew: 1
  topologyKey: ${key}
  whenUnsatisfiable: ScheduleAnyway
  labelSelector:
    matchLabels:
      app.kubernetes.io/name: ${name}
  matchLabelKeys: ["pod-template-hash"]`,
    )
    .join('\n');
}

/** The env list of a workload's Deployment (its container 0), as the base writes it; overlays patch entries of it by index. */
export function deploymentEnv(workload: Workload, list: readonly ServiceEntry[]): string {
  const grpcTls = usesGrpc(workload.entry, list);
  return envList(workload.entry, { literal: { ...(grpcTls ? grpcTlsEnv : {}), ...workloadEnv(workload, list) } });
}

/** Where `name` sits in the Deployment's env list (for a JSON patch), or -1. */
export function deploymentEnvIndex(workload: Workload, list: readonly ServiceEntry[], name: string): number {
  return [...deploymentEnv(workload, list).matchAll(/^- name: (\S+)$/gm)].findIndex((match) => match[1] === name);
}

/** A workload's labels: its name, and its lane when it serves one alone (a pod label: selectors stay on the name). */
const workloadLabels = (workload: Workload) => labels(workload.name, workload.lane ? { [laneLabel]: workload.lane } : {});

export function deployment(workload: Workload, list: readonly ServiceEntry[]): string {
  const { entry, name } = workload;
  const grpcTls = usesGrpc(entry, list);
  const ports = kindsOf(entry)
    .map((kind) => `- name: ${portNames[kind]}\n  containerPort: ${entry.ports[kind]}`)
    .join('\n');
  const replicaNote = workload.lane === 'test' ? `  # Test mode's fixed capacity (contract §14): one pod, CPU-capped; see scripts/deploy/workloads.ts.\n` : '';
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  labels:
${indent(workloadLabels(workload), 4)}
spec:
${replicaNote}  replicas: ${replicasOf(workload)}
  revisionHistoryLimit: 5
  selector:
    matchLabels:
      app.kubernetes.io/name: ${name}
  strategy:
    rollingUpdate:
      maxSurge: 1
      maxUnavailable: 0
  template:
    metadata:
      labels:
${indent(workloadLabels(workload), 8)}
      annotations:
        prometheus.io/scrape: "true"
        prometheus.io/port: "${entry.ports[metricsPort(entry.ports)]}"
        prometheus.io/path: /metrics
    spec:
${indent(podSecurity, 6)}
      # preStop ${shutdown.preStopSeconds} s + the service's shutdown deadline ${shutdown.deadlineMs / 1000} s (SHUTDOWN_TIMEOUT_MS) + ${shutdown.gracePeriodSeconds - shutdown.preStopSeconds - shutdown.deadlineMs / 1000} s margin.
      terminationGracePeriodSeconds: ${shutdown.gracePeriodSeconds}
      topologySpreadConstraints:
${indent(spread(name), 8)}
      containers:
        - name: ${entry.name}
          image: ${imageName}
          envFrom:
            - configMapRef:
                name: ${configMapName}
          env:
${indent(deploymentEnv(workload, list), 12)}
          ports:
${indent(ports, 12)}
${indent(probes(entry), 10)}
          # Lets endpoints drop this pod before it stops accepting connections.
          lifecycle:
            preStop:
              exec:
                command: ["sleep", "${shutdown.preStopSeconds}"]
${indent(resourcesYaml(workloadResources(workload)), 10)}
${indent(containerSecurity, 10)}
${indent(grpcTls ? `${writableMounts}\n  - name: grpc-tls\n    mountPath: ${grpcTlsMount}\n    readOnly: true` : writableMounts, 10)}
${indent(grpcTls ? `${writableVolumes}\n  - name: grpc-tls\n    secret:\n      secretName: ${grpcTlsSecret(entry)}\n      defaultMode: 288 # 0440: readable by the pod's group (fsGroup) only` : writableVolumes, 6)}`;
}

function servicePort(entry: ServiceEntry, kind: PortKind): string {
  const protocol = kind === 'grpc' ? '\n  appProtocol: grpc' : '';
  return `- name: ${portNames[kind]}\n  port: ${entry.ports[kind]}\n  targetPort: ${portNames[kind]}${protocol}`;
}

/**
 * The in-cluster address. A service with a gRPC API gets a headless Service:
 * its DNS name answers every ready pod's address, and the callers' gRPC
 * clients (dns:/// + round_robin) balance each call across them. A ClusterIP
 * would balance connections, so each caller would stick to one pod.
 */
export function service(workload: Workload): string {
  const { entry, name } = workload;
  const headless = entry.ports.grpc !== undefined;
  return `# In-cluster address of ${name} (${name}.${namespaceName}.svc)${headless ? ': headless, so gRPC clients see every pod' : ''}.
apiVersion: v1
kind: Service
metadata:
  name: ${name}
  labels:
${indent(workloadLabels(workload), 4)}
spec:
  type: ClusterIP${headless ? '\n  clusterIP: None' : ''}
  selector:
    app.kubernetes.io/name: ${name}
  ports:
${indent(kindsOf(entry).map((kind) => servicePort(entry, kind)).join('\n'), 4)}`;
}
