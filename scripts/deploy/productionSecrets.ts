/**
 * The Secrets deploy/k8s/overlays/production reads: which key each
 * Deployment and migration Job takes from the ${secretName} Secret, and
 * external-secret.example.yaml, which shows one way to provide them.
 */
import type { ServiceEntry } from '../launcher/services.js';
import { constantCase, generatedHeader, namespaceName, secretDoc, secretKeysOf, secretName } from './settings.js';
import { runnersOf } from './workloads.js';

export const natsSecretName = 'esim-nats';

/** The SM-DP+ settings provisioning reads from the esim-secrets Secret in production (contract §8), overriding the base's simulator addresses. */
export const smdpSecretKeys = ['SMDP_ES2_URL', 'SMDP_REQUESTER_ID', 'CONNECTIVITY_URL'] as const;
export const smdpSecretName = 'esim-smdp';

/**
 * One database role per service (#24): each Deployment connects with its own
 * URL, from its own key of the Secret (`ORDERS_DATABASE_URL`…), whose user
 * has rights on that service's schema only. The service's migration Job
 * runs as the owner (MIGRATION_DATABASE_URL) and, after the migrations,
 * creates or updates that role from the same URL (user and password) and
 * grants it its schema (packages/postgres serviceRole.ts).
 */
export const serviceDatabaseKey = (entry: ServiceEntry) => `${constantCase(entry.name)}_DATABASE_URL`;

/** Every key of the ${secretName} Secret this overlay reads, with the services reading it. */
export function productionSecretKeys(list: readonly ServiceEntry[]): Map<string, string[]> {
  const readers = new Map<string, string[]>();
  const add = (key: string, name: string) => readers.set(key, [...(readers.get(key) ?? []), name]);
  for (const entry of list) {
    // A test-mode replica reads what its service reads.
    const runners = runnersOf(entry.name, list).map((workload) => workload.name);
    const addAll = (key: string) => runners.forEach((name) => add(key, name));
    for (const key of secretKeysOf(entry)) {
      if (key !== 'DATABASE_URL') addAll(key);
    }
    if (entry.needs.includes('postgres')) {
      add('MIGRATION_DATABASE_URL', `${entry.name}-migrate`);
      addAll(serviceDatabaseKey(entry));
      add(serviceDatabaseKey(entry), `${entry.name}-migrate`);
    }
    if (entry.needs.includes('redis')) addAll('REDIS_PASSWORD');
    if (entry.name === 'provisioning') for (const key of smdpSecretKeys) addAll(key);
  }
  return readers;
}

const extraSecretDocs: Record<string, string> = {
  MIGRATION_DATABASE_URL:
    'the migration Jobs: a role that owns the schemas (DDL) and may create roles (CREATEROLE), straight to Postgres; each service uses its own <SERVICE>_DATABASE_URL.',
  REDIS_PASSWORD: 'the password of the Redis Cluster behind REDIS_CLUSTER_NODES (its AUTH; the same on every node).',
  SMDP_ES2_URL: 'the SM-DP+ vendor\'s ES2+ base URL (https://…); never the simulator (provisioning refuses to start).',
  SMDP_REQUESTER_ID: 'this operator\'s functionRequesterIdentifier, as agreed with the SM-DP+ vendor.',
  CONNECTIVITY_URL: 'the connectivity provider\'s API base URL (bundles, revocation, suspension); never the simulator.',
};

/** One key of a Secret, read from `path` in the secret store. */
const remoteKey = (key: string, path: string) => `    - secretKey: ${key}\n      remoteRef:\n        key: ${path}\n        property: ${key}`;

/** An ExternalSecret that fills the Secret `name` with `data` (remoteKey lines) from the ClusterSecretStore `platform-secrets`. */
const externalSecretDocument = (name: string, data: string) => `apiVersion: external-secrets.io/v1beta1
kind: ExternalSecret
metadata:
  name: ${name}
  namespace: ${namespaceName}
spec:
  refreshInterval: 1h
  secretStoreRef:
    kind: ClusterSecretStore
    name: platform-secrets
  target:
    name: ${name}
    creationPolicy: Owner
  data:
${data}`;

export function externalSecret(list: readonly ServiceEntry[]): string {
  const keys = productionSecretKeys(list);
  const data = [...keys.entries()]
    .map(([key, readers]) => {
      const doc = key.endsWith('_DATABASE_URL') && key !== 'MIGRATION_DATABASE_URL'
        ? `the service's own role (user and password; its migration Job creates it and grants it this service's schema only, DML).`
        : key in extraSecretDocs ? extraSecretDocs[key]! : secretDoc(key as Parameters<typeof secretDoc>[0]).doc.replace(/\n\s*#\s*/g, ' ');
      return `    # ${readers.join(', ')}: ${doc}\n${remoteKey(key, 'esim/production')}`;
    })
    .join('\n');
  return `${generatedHeader}
#
# NOT applied: an example of providing the Secrets this overlay reads with the
# External Secrets Operator (external-secrets.io) from your secret store
# (Vault, AWS Secrets Manager, GCP Secret Manager…), through a
# ClusterSecretStore you define. Any other way of creating the same two
# Secrets, with the same keys, works as well.
${externalSecretDocument(secretName, data)}
---
# The NATS user's credentials (nsc / the NATS chart's operator mode) and the CA of the NATS server's certificate.
${externalSecretDocument(natsSecretName, ['user.creds', 'ca.crt'].map((key) => remoteKey(key, 'esim/production/nats')).join('\n'))}
`;
}

