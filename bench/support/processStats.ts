/** What the benchmarks read about a process from /proc (Linux): its resident memory and the CPU it has used. */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { processCpuMs, processTimes } from '../../scripts/launcher/procStat.js';

/** A process's CPU so far (the launcher's reader); throws once it is gone. */
export function cpuMs(pid: number): number {
  const ms = processCpuMs(pid);
  if (ms === undefined) throw new Error(`no process ${pid}`);
  return ms;
}

/** VmRSS from /proc/<pid>/status, in MiB (NaN when the process is gone). */
export function rssMiB(pid: number): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB$/m);
    return line ? Number(line[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

/** The whole machine's busy CPU, as the launcher's spare-CPU follower reads it. */
export { machineBusyMs } from '../../scripts/launcher/procStat.js';

/**
 * A server and everything it forked, in ms: its own CPU, its reaped
 * children's and its living children's. For Postgres' postmaster that is
 * every backend, however short-lived.
 */
export function processTreeCpuMs(pid: number): number {
  const times = processTimes(pid);
  if (!times) throw new Error(`no process ${pid}`);
  const children = spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean).map(Number);
  return times.ownMs + times.reapedChildrenMs + children.reduce((sum, child) => sum + (processCpuMs(child) ?? 0), 0);
}

/** The oldest process of that exact name (pgrep -o -x), if any: the machine's Postgres postmaster, its NATS server. */
export function serverPid(name: string): number | undefined {
  const found = spawnSync('pgrep', ['-o', '-x', name], { encoding: 'utf8' }).stdout.trim();
  return found ? Number(found) : undefined;
}
