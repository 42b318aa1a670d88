/**
 * What each pod asks the scheduler for. Memory requests come from the
 * service's measured working set: its peak RSS over the soak
 * (docs/benchmarks.md, "Soak": ten minutes of catalog reads and orders,
 * compiled, with the image's V8 heap), plus 10 %, rounded up to 16 Mi. Idle
 * RSS is lower (80–95 MiB settled) but is not what a pod that serves
 * traffic holds. The limit leaves room for a burst without letting one pod
 * starve a node. A service missing here is sized like the largest measured
 * one, and test/deploy-k8s.test.ts fails until it is measured and added.
 */
import type { ServiceEntry } from '../launcher/services.js';
import type { Workload } from './workloads.js';

/** Peak RSS in MiB over the soak of 2026-11-23 (docs/benchmarks.md). */
export const measuredPeakRssMiB: Record<string, number> = {
  partners: 127,
  catalog: 124,
  mailer: 86,
  wallet: 128,
  orders: 139,
  provisioning: 146,
  webhooks: 133,
  'supplier-sim': 91,
  gateway: 151,
};

const headroom = 1.1;
const memoryLimitMiB = 512;

/**
 * CPU: the request is what HPA utilisation is measured against; the gateway
 * serves every request of the platform (bench/catalog.ts: 8,000–12,000
 * authenticated catalog requests/s on one core), the rest mostly wait on
 * Postgres. The limit stops a runaway
 * loop from taking a node, not normal bursts.
 */
const cpuRequest: Record<string, string> = { gateway: '250m' };

export interface PodResources {
  requests: { cpu: string; memory: string };
  limits: { cpu: string; memory: string };
}

export function resourcesOf(entry: ServiceEntry): PodResources {
  const peak = measuredPeakRssMiB[entry.name] ?? Math.max(...Object.values(measuredPeakRssMiB));
  const memory = Math.ceil((peak * headroom) / 16) * 16;
  return {
    requests: { cpu: cpuRequest[entry.name] ?? '100m', memory: `${memory}Mi` },
    limits: { cpu: '1', memory: `${memoryLimitMiB}Mi` },
  };
}

/**
 * Test mode's replicas (workloads.ts) run the same code, so they hold the
 * same working set: the same memory. CPU is what test load could take from
 * live orders on a shared node, so a replica requests little and is capped
 * at half the live limit: under a burst of test orders it is throttled at
 * the cap instead of growing into what the node's live pods use. Compose
 * applies the same cap (`cpus`).
 */
export const testReplicaCpu = { requestMillicores: 50, limitMillicores: 500 } as const;

/** What one pod of a workload asks for: its service's sizing, with test mode's CPU cap on a replica. */
export function workloadResources(workload: Workload): PodResources {
  const own = resourcesOf(workload.entry);
  if (workload.lane !== 'test') return own;
  return {
    requests: { cpu: `${testReplicaCpu.requestMillicores}m`, memory: own.requests.memory },
    limits: { cpu: `${testReplicaCpu.limitMillicores}m`, memory: own.limits.memory },
  };
}

/** A migration Job: one short-lived process that applies SQL files. */
export const migrationResources: PodResources = {
  requests: { cpu: '50m', memory: '160Mi' },
  limits: { cpu: '500m', memory: '256Mi' },
};
