import { availableParallelism } from 'node:os';
import type { CpuBudget } from './cpuBudget.js';
import { machineBusyMs } from './procStat.js';

/**
 * Test mode on the CPU live leaves over. A fixed budget is a fixed number of
 * cores: on a machine that live already keeps three-quarters busy, a
 * quarter core of test replicas, plus the Postgres, NATS and gateway work
 * their orders cause outside any budget, saturates it, and live p99 pays
 * (docs/benchmarks.md, "Test mode beside live"). So the launcher moves the
 * budget between a floor and its ceiling (TEST_MODE_CPU) with what the rest
 * of the machine uses: test mode gets what keeps the whole machine under
 * `share` of its cores, never less than the floor (a test order still
 * completes, slowly) nor more than the ceiling.
 *
 * Everything but the group counts as "the rest", Postgres' backends
 * included: work a test order causes there makes the group smaller, so
 * test mode's whole footprint, not only its replicas', yields to live.
 */
export interface SparePolicy {
  /** The budget on an idle machine, in cores (TEST_MODE_CPU). */
  ceiling: number;
  /** The least it shrinks to, in cores. */
  floor: number;
  /** The fraction of the machine's cores the rest may use before test mode is held at its floor. */
  share: number;
  /** The machine's cores. */
  cores: number;
}

/** The floor: 0.05 cores let a lone test order through in seconds on these machines, while live (at 78 % busy) saw no difference. */
export const spareFloorCores = 0.05;
/** Above 60 % busy, queueing starts to show in live p99 on two cores; test mode gets only what keeps the machine below it. */
export const spareShare = 0.6;

export function sparePolicy(ceiling: number, cores = availableParallelism()): SparePolicy {
  return { ceiling, floor: Math.min(spareFloorCores, ceiling), share: spareShare, cores };
}

/** The budget, in cores, when the rest of the machine uses `othersMsPerSecond` (1000 = one core busy). */
export function spareCores(policy: SparePolicy, othersMsPerSecond: number): number {
  const left = (policy.share * policy.cores * 1000 - othersMsPerSecond) / 1000;
  return Math.min(policy.ceiling, Math.max(policy.floor, left));
}

/**
 * The next budget: down at once (live is waiting now), up by half the way
 * per step (so one quiet moment does not let a queue of test orders loose
 * on a machine about to be busy again).
 */
export function nextCores(current: number, wanted: number): number {
  return wanted < current ? wanted : current + (wanted - current) / 2;
}

export interface SpareFollower {
  /** The budget now, in cores. */
  cores(): number;
  stop(): void;
}

/**
 * Every `intervalMs`, reads the machine's busy CPU and the group's own and
 * resizes the group's quota. Without /proc (not Linux) it leaves the budget
 * where it is.
 */
export function followSpareCpu(budget: Pick<CpuBudget, 'resize' | 'usedMs'>, policy: SparePolicy, options: { intervalMs?: number; readMachineMs?: () => number | undefined } = {}): SpareFollower {
  const readMachine = options.readMachineMs ?? machineBusyMs;
  const intervalMs = options.intervalMs ?? 500;
  let current = policy.ceiling;
  let last = { at: performance.now(), machine: readMachine(), group: budget.usedMs() };
  const timer = setInterval(() => {
    const now = { at: performance.now(), machine: readMachine(), group: budget.usedMs() };
    const seconds = (now.at - last.at) / 1000;
    if (now.machine !== undefined && last.machine !== undefined && seconds > 0) {
      // A replica that restarted takes its CPU out of the group's total: the group used at least nothing.
      const group = Math.max(0, now.group - last.group);
      const others = Math.max(0, now.machine - last.machine - group) / seconds;
      const next = nextCores(current, spareCores(policy, others));
      if (Math.abs(next - current) >= 0.005) {
        try {
          budget.resize(next);
          current = next;
        } catch {
          // the group is gone (the launcher is stopping): nothing left to resize
        }
      }
    }
    last = now;
  }, intervalMs);
  timer.unref();
  return { cores: () => current, stop: () => clearInterval(timer) };
}
