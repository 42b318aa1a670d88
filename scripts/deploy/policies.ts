/**
 * What keeps the platform's pods available and contained: a
 * PodDisruptionBudget per service, a dedicated ServiceAccount without a
 * token, and NetworkPolicies that deny everything but the traffic the
 * service list and the services' configs say exists.
 */
import type { PortKind, ServiceEntry } from '../launcher/services.js';
import { generatedHeader, indent, infrastructurePorts, metricsPort, otlpPorts, partOf, peers, privateRanges, serviceAccountName } from './settings.js';
import { workloadCallers, workloadCalls, type Workload } from './workloads.js';

/**
 * Services that talk to the internet beyond the platform, and why: only on
 * 443, never to private ranges. A service that calls a `url` entry of the
 * list (the supplier simulator) stands in for one talking to a third party
 * and gets the same.
 */
export const internetClients: Record<string, string> = {
  webhooks: "delivers events to partners' HTTPS endpoints",
};

export function pdb(workload: Workload): string {
  const { name } = workload;
  return `# Voluntary disruptions (node drains, upgrades) take at most one pod of ${name} at a time.
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: ${name}
  labels:
    app.kubernetes.io/name: ${name}
    app.kubernetes.io/part-of: ${partOf}
spec:
  maxUnavailable: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: ${name}`;
}

const tcp = (ports: number[]) => ports.map((port) => `- protocol: TCP\n  port: ${port}`).join('\n');
const podsNamed = (names: string[]) => names.map((name) => `- podSelector:\n    matchLabels:\n      app.kubernetes.io/name: ${name}`).join('\n');
const rule = (comment: string, peersYaml: string | undefined, ports: number[], direction: 'from' | 'to') =>
  `# ${comment}\n${peersYaml ? `- ${direction}:\n${indent(peersYaml, 4)}\n  ports:\n${indent(tcp(ports), 4)}` : `- ports:\n${indent(tcp(ports), 4)}`}`;

const internet = `- ipBlock:\n    cidr: 0.0.0.0/0\n    except:\n${privateRanges.map((range) => `      - ${range}`).join('\n')}`;

function ingressRules(workload: Workload, list: readonly ServiceEntry[]): string[] {
  const { entry } = workload;
  const rules: string[] = [];
  const byPort = new Map<PortKind, string[]>();
  for (const { caller, port } of workloadCallers(workload, list)) byPort.set(port, [...(byPort.get(port) ?? []), caller.name]);
  for (const [port, callers] of byPort) rules.push(rule(`${callers.join(', ')} call its ${port} port`, podsNamed(callers), [entry.ports[port]!], 'from'));
  // Public listeners stay the service's: the Ingress and a real SM-DP+ reach its live pods only (test orders use the
  // simulator, which reports ES2+ progress to the service's own address too).
  for (const kind of workload.lane === 'test' ? [] : (entry.public ?? [])) {
    const port = entry.ports[kind]!;
    if (kind === 'admin') {
      rules.push(rule('the admin API: only from namespaces an operator labelled for it (never the Ingress)', `- namespaceSelector:\n    matchLabels:\n      ${peers.adminAccessLabel}: "true"`, [port], 'from'));
    } else {
      rules.push(rule('the public listener, through the ingress controller', `- namespaceSelector:\n    matchLabels:\n      kubernetes.io/metadata.name: ${peers.ingressNamespace}`, [port], 'from'));
    }
  }
  const prometheus = `- namespaceSelector:\n    matchLabels:\n      kubernetes.io/metadata.name: ${peers.prometheusNamespace}\n  podSelector:\n    matchLabels:\n${Object.entries(peers.prometheusPodLabels).map(([key, value]) => `      ${key}: ${value}`).join('\n')}`;
  rules.push(rule('Prometheus scrapes /metrics', prometheus, [entry.ports[metricsPort(entry.ports)]!], 'from'));
  return rules;
}

function egressRules(workload: Workload, list: readonly ServiceEntry[]): string[] {
  const { entry } = workload;
  const rules: string[] = [];
  const calls = workloadCalls(workload, list);
  for (const call of calls) rules.push(rule(`calls ${call.target.name}`, podsNamed([call.target.name]), [call.target.entry.ports[call.port]!], 'to'));
  const infra = entry.needs.flatMap((need) => infrastructurePorts[need]);
  if (infra.length > 0) rules.push(rule(`${entry.needs.join(', ')}, wherever they run`, undefined, infra, 'to'));
  const thirdParty = calls.some((call) => call.target.entry.url !== undefined);
  const why = internetClients[entry.name] ?? (thirdParty ? 'the real upstream its simulator stands in for' : undefined);
  if (why) rules.push(rule(`the internet on 443 only: ${why}`, internet, [443], 'to'));
  return rules;
}

/**
 * The workload's own policy: who may reach which of its ports, and what it
 * may reach. A test replica's mirrors its service's, with the replicas in
 * place of the replicated services (workloads.ts), so test traffic stays on
 * test pods and gains no path the live service does not have.
 */
export function networkPolicy(workload: Workload, list: readonly ServiceEntry[]): string {
  const { name } = workload;
  const egress = egressRules(workload, list);
  return `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: ${name}
  labels:
    app.kubernetes.io/name: ${name}
    app.kubernetes.io/part-of: ${partOf}
spec:
  podSelector:
    matchLabels:
      app.kubernetes.io/name: ${name}
  policyTypes: ["Ingress", "Egress"]
  ingress:
${indent(ingressRules(workload, list).join('\n'), 4)}
${egress.length > 0 ? `  egress:\n${indent(egress.join('\n'), 4)}` : '  # It dials nothing.\n  egress: []'}`;
}

/** deploy/k8s/base/network-policies.yaml: deny by default, then what every pod needs (DNS, trace export). */
export const sharedPolicies = `${generatedHeader}
#
# Default deny: a pod of this namespace receives and sends nothing that a
# policy does not allow. Each service's own policy (in <service>.yaml) opens
# its callers, its public ports, Prometheus, and what it dials. Kubelet
# probes come from the node and are not subject to these in the common CNIs
# (Calico, Cilium, the cloud ones).
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: default-deny
  labels:
    app.kubernetes.io/part-of: ${partOf}
spec:
  podSelector: {}
  policyTypes: ["Ingress", "Egress"]
---
# Name resolution for everyone (cluster DNS, or a node-local cache).
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: allow-dns
  labels:
    app.kubernetes.io/part-of: ${partOf}
spec:
  podSelector: {}
  policyTypes: ["Egress"]
  egress:
    - ports:
        - protocol: UDP
          port: 53
        - protocol: TCP
          port: 53
---
# Spans go to an OpenTelemetry Collector (OTEL_EXPORTER_OTLP_ENDPOINT), wherever it runs.
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: allow-otlp-export
  labels:
    app.kubernetes.io/part-of: ${partOf}
spec:
  podSelector:
    matchLabels:
      app.kubernetes.io/part-of: ${partOf}
  policyTypes: ["Egress"]
  egress:
    - ports:
${indent(tcp(otlpPorts), 8)}
`;

export const serviceAccount = `${generatedHeader}
#
# Every pod of the platform runs as this account. No RBAC binds it (the
# services never call the Kubernetes API) and no token is mounted; bind a
# cloud identity here (IRSA, Workload Identity) from an overlay if needed.
apiVersion: v1
kind: ServiceAccount
metadata:
  name: ${serviceAccountName}
  labels:
    app.kubernetes.io/part-of: ${partOf}
automountServiceAccountToken: false
`;
