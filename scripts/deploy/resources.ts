/**
 * What each pod asks the scheduler for. Memory requests come from measured
 * idle RSS (docs/benchmarks.md, "Startup and idle memory": compiled, as the
 * image runs, after 10 s idle) plus 30 % for the heap a working process
 * grows, rounded up to 16 Mi; the limit leaves room for a burst without
 * letting one pod starve a node. A service missing here is sized like the
 * largest measured one, and test/deploy-k8s.test.ts fails until it is
 * measured (`bench/startup.ts`) and added.
 */
import type { ServiceEntry } from '../launcher/services.js';

/** Idle RSS in MiB of the compiled service (docs/benchmarks.md). */
export const measuredIdleRssMiB: Record<string, number> = {
  partners: 164,
  catalog: 165,
  mailer: 163,
  wallet: 166,
  orders: 167,
  provisioning: 161,
  // Not in the benchmark table yet: measured the same way on 2026-11-22 (158 MiB beside catalog's
  // 154 MiB in the same run, which the table has at 165), scaled to the table's run.
  webhooks: 169,
  'supplier-sim': 162,
  gateway: 177,
};

const headroom = 1.3;
const memoryLimitMiB = 512;

/**
 * CPU: the request is what HPA utilisation is measured against; the gateway
 * serves every request of the platform (bench/: ~4,300 probe requests/s on
 * one core), the rest mostly wait on Postgres. The limit stops a runaway
 * loop from taking a node, not normal bursts.
 */
const cpuRequest: Record<string, string> = { gateway: '250m' };

export interface PodResources {
  requests: { cpu: string; memory: string };
  limits: { cpu: string; memory: string };
}

export function resourcesOf(entry: ServiceEntry): PodResources {
  const idle = measuredIdleRssMiB[entry.name] ?? Math.max(...Object.values(measuredIdleRssMiB));
  const memory = Math.ceil((idle * headroom) / 16) * 16;
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
