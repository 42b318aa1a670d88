import { existsSync, readdirSync, readFileSync, rmdirSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processCpuMs } from './procStat.js';

/**
 * A hard CPU budget shared by a group of processes: a Linux control group
 * with a CFS bandwidth quota, what a Kubernetes CPU limit is underneath.
 *
 * Why the launcher needs more than `nice` for test mode's replicas: on the
 * 2-core machines we measure on, two busy loops at nice 19 (or SCHED_IDLE)
 * and nothing else slowed live orders from p50 21–25 / p99 35–87 ms to
 * 37–47 / 199–791 ms (docs/benchmarks.md, "Test mode beside live"): a lower
 * priority decides who runs first, not how much the other work disturbs
 * the live work around it. A quota bounds how much test mode runs at all.
 *
 * The quota is `cores` of CPU time per 100 ms period for the whole group,
 * with a burst of one more period's quota banked while the group idles, so
 * one test order at a time is not throttled; sustained test load is.
 */
export interface CpuBudget {
  /** The control group's folder. */
  readonly path: string;
  /** Moves a running process (and every thread of it) into the group. */
  join(pid: number): void;
  /** Sets the quota to `cores` (./spareCpu.ts moves it with what live leaves over). */
  resize(cores: number): void;
  /** The CPU its processes have used so far, in ms (their /proc figures, so a process that left takes its share along). */
  usedMs(): number;
  /** Removes the group once its processes are gone; a group still in use is left to the next launcher's sweep. */
  close(): void;
}

export type CpuBudgetResult = { budget: CpuBudget } | { unavailable: string };

const periodUs = 100_000;
/**
 * The group's weight against the processes outside it, the least each
 * version takes. The kernel weighs a group as one entity, so its members'
 * `nice` only orders them among themselves; left at the default (1024 / 100)
 * the whole group would compete as one live process does.
 */
const lowestShares = 2;
const lowestWeight = 1;
/** A launcher's group name: the sweep finds groups of launchers that are gone by the pid in it. */
const groupPrefix = 'esim-test-mode-';

interface Layout {
  /** The folder groups are made in. */
  parent: string;
  /** Settles a new group: its period and its weight against the processes outside it. */
  prepare(group: string): void;
  /** Writes the group's quota per period, and a burst of one quota. */
  limit(group: string, quotaUs: number): void;
}

/** cgroup v1's `cpu` hierarchy, or v2's unified one with `cpu` delegated to the root's children; undefined when neither is writable here. */
function layoutAt(root: string): Layout | undefined {
  const v1 = join(root, 'cpu');
  if (existsSync(join(v1, 'cpu.cfs_quota_us'))) {
    return {
      parent: v1,
      prepare(group) {
        writeFileSync(join(group, 'cpu.cfs_period_us'), String(periodUs));
        writeFileSync(join(group, 'cpu.shares'), String(lowestShares));
      },
      limit(group, quotaUs) {
        // Kernels before 5.14 have no burst; the quota alone still holds. The kernel refuses a burst above the
        // quota, so a quota that shrinks has its old burst cleared first.
        const burst = join(group, 'cpu.cfs_burst_us');
        if (existsSync(burst)) writeFileSync(burst, '0');
        writeFileSync(join(group, 'cpu.cfs_quota_us'), String(quotaUs));
        if (existsSync(burst)) writeFileSync(burst, String(quotaUs));
      },
    };
  }
  const delegated = (file: string) => existsSync(join(root, file)) && readFileSync(join(root, file), 'utf8').split(/\s+/).includes('cpu');
  if (delegated('cgroup.controllers') && delegated('cgroup.subtree_control')) {
    return {
      parent: root,
      prepare(group) {
        writeFileSync(join(group, 'cpu.weight'), String(lowestWeight));
      },
      limit(group, quotaUs) {
        const burst = join(group, 'cpu.max.burst');
        if (existsSync(burst)) writeFileSync(burst, '0');
        writeFileSync(join(group, 'cpu.max'), `${quotaUs} ${periodUs}`);
        if (existsSync(burst)) writeFileSync(burst, String(quotaUs));
      },
    };
  }
  return undefined;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Empty groups of launchers that died without closing theirs. */
function sweep(parent: string): void {
  for (const name of readdirSync(parent)) {
    if (!name.startsWith(groupPrefix)) continue;
    const owner = Number(name.slice(groupPrefix.length));
    if (!Number.isInteger(owner) || alive(owner)) continue;
    try {
      rmdirSync(join(parent, name));
    } catch {
      // still has processes: left for a later sweep
    }
  }
}

/**
 * Opens this launcher's budget of `cores` (0.25: a quarter of one core,
 * shared by every process that joins). Unavailable, with the reason, where
 * the machine gives no writable CPU controller (not Linux, no root, a
 * container without cgroup delegation): the caller then relies on `nice`.
 */
export function openCpuBudget(cores: number, root = '/sys/fs/cgroup', owner = process.pid): CpuBudgetResult {
  if (!(cores > 0)) return { unavailable: `a budget of ${cores} cores` };
  const layout = layoutAt(root);
  if (!layout) return { unavailable: `no CPU controller under ${root} that this process may use` };
  const path = join(layout.parent, `${groupPrefix}${owner}`);
  const quotaUs = (of: number) => Math.max(1_000, Math.round(of * periodUs));
  try {
    sweep(layout.parent);
    mkdirSync(path, { recursive: true });
    layout.prepare(path);
    layout.limit(path, quotaUs(cores));
  } catch (error) {
    return { unavailable: `${path}: ${(error as Error).message}` };
  }
  return {
    budget: {
      path,
      join(pid) {
        writeFileSync(join(path, 'cgroup.procs'), String(pid));
      },
      resize(to) {
        layout.limit(path, quotaUs(to));
      },
      usedMs() {
        const members = readFileSync(join(path, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
        return members.reduce((sum, pid) => sum + (processCpuMs(pid) ?? 0), 0);
      },
      close() {
        try {
          rmdirSync(path);
        } catch {
          // a process of it outlived the launcher: the next launcher's sweep removes the group
        }
      },
    },
  };
}
