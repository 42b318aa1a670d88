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

/** A migration Job: one short-lived process that applies SQL files. */
export const migrationResources: PodResources = {
  requests: { cpu: '50m', memory: '160Mi' },
  limits: { cpu: '500m', memory: '256Mi' },
};
