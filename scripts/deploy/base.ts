/** The kustomize base under deploy/k8s/base, from the service list: one file per entry plus the shared objects. */
import { addressEnv, type ServiceEntry } from '../launcher/services.js';
import { deployment, service } from './kubernetes.js';
import { networkPolicy, pdb, serviceAccount, sharedPolicies } from './policies.js';
import { configMapName, generatedHeader, imageName, namespaceName, partOf, scalar, secretDoc, secretKeysOf, secretName, sharedSettings } from './settings.js';
import { workloadsOf, type Workload } from './workloads.js';

/** An env file for a configMapGenerator: `KEY=value` lines, taken literally (no quotes, no interpolation). */
export function envFile(comment: string, sections: Array<[string, Record<string, string>]>): string {
  const body = sections
    .map(([title, values]) => [`# ${title}`, ...Object.entries(values).map(([key, value]) => `${key}=${value}`)].join('\n'))
    .join('\n');
  return `${generatedHeader}\n#\n${comment
    .split('\n')
    .map((line) => `# ${line}`.trimEnd())
    .join('\n')}\n${body}\n`;
}

/** deploy/k8s/base/<name>.yaml (a service, or test mode's `<service>-test`): the Deployment, its Service, its disruption budget and its network policy. */
export function serviceManifest(workload: Workload, list: readonly ServiceEntry[]): string {
  return `${generatedHeader}\n${[deployment(workload, list), service(workload), pdb(workload), networkPolicy(workload, list)].join('\n---\n')}\n`;
}

function configEnv(list: readonly ServiceEntry[]): string {
  const addresses = addressEnv(Object.fromEntries(list.map((entry) => [entry.name, entry.ports])), (name) => name);
  return envFile(
    `Non-secret settings every service reads (contract §2), as the ${configMapName}
ConfigMap (hashed name: a change rolls every Deployment). Secrets, DATABASE_URL
included, live in the ${secretName} Secret (see ../secrets.example.yaml).
Redis and NATS are not part of this base: the overlays set REDIS_URL (or
REDIS_CLUSTER_NODES) and NATS_URL, and OTEL_EXPORTER_OTLP_ENDPOINT (empty: no trace export).`,
    [
      ['Shared settings', sharedSettings.kubernetes],
      ['How services find each other: <NAME>_ADDR for gRPC APIs, URLs for the rest.', addresses],
    ],
  );
}

export function secretsExample(list: readonly ServiceEntry[]): string {
  const readers = new Map<string, string[]>();
  for (const entry of list) for (const key of secretKeysOf(entry)) readers.set(key, [...(readers.get(key) ?? []), entry.name]);
  const keys = [...readers.keys()] as Parameters<typeof secretDoc>[0][];
  const literals = keys.map((key) => `  --from-literal=${key}=${secretDoc(key).create}`).join(' \\\n#   ');
  const data = keys
    .map((key) => `  # ${readers.get(key)!.join(', ')}: ${secretDoc(key).doc}\n  ${key}: ${scalar(secretDoc(key).example)}`)
    .join('\n');
  return `${generatedHeader}
#
# Documents the ${secretName} Secret. NOT applied by any kustomization: create
# the real one from your secret store before applying an overlay (the
# production overlay reads MIGRATION_DATABASE_URL and, instead of the shared
# DATABASE_URL, one <SERVICE>_DATABASE_URL per service, each its own role: see
# overlays/production/external-secret.example.yaml), e.g.
#
#   kubectl -n ${namespaceName} create secret generic ${secretName} \\
#   ${literals}
#
# With NODE_ENV=production no service invents a default for these: a missing
# key keeps the pod from starting.
apiVersion: v1
kind: Secret
metadata:
  name: ${secretName}
  namespace: ${namespaceName}
  labels:
    app.kubernetes.io/part-of: ${partOf}
type: Opaque
stringData:
${data}
`;
}

const namespace = `${generatedHeader}
apiVersion: v1
kind: Namespace
metadata:
  name: ${namespaceName}
  labels:
    app.kubernetes.io/part-of: ${partOf}
    # The services run as non-root with a read-only root filesystem and no capabilities.
    pod-security.kubernetes.io/enforce: restricted
`;

function kustomization(list: readonly ServiceEntry[]): string {
  const resources = ['namespace.yaml', 'serviceaccount.yaml', 'network-policies.yaml', ...workloadsOf(list).map((workload) => `${workload.name}.yaml`)];
  return `${generatedHeader}
#
# The whole platform, every object an overlay shares: apply an overlay
# (../overlays/dev or ../overlays/production), not this directory. A new
# service is an entry in the service list and \`npm run deploy:gen\`.
# <service>-test.yaml: test mode's replica of a service on a test order's
# path (EVENT_LANES=test, CPU-capped; scripts/deploy/workloads.ts).
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: ${namespaceName}
resources:
${resources.map((file) => `  - ${file}`).join('\n')}
configMapGenerator:
  - name: ${configMapName}
    envs:
      - config.env
# Every service runs the one image built from the repository's Dockerfile; the overlays pin it.
images:
  - name: ${imageName}
    newTag: dev
`;
}

/** Every file of deploy/k8s/base, by name. */
export function baseFiles(list: readonly ServiceEntry[]): Record<string, string> {
  return {
    'kustomization.yaml': kustomization(list),
    'namespace.yaml': namespace,
    'serviceaccount.yaml': serviceAccount,
    'network-policies.yaml': sharedPolicies,
    'config.env': configEnv(list),
    ...Object.fromEntries(workloadsOf(list).map((workload) => [`${workload.name}.yaml`, serviceManifest(workload, list)])),
  };
}
