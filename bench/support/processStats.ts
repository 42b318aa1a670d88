/** What the benchmarks read about a process from /proc (Linux): its resident memory and the CPU it has used. */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const clockTicksPerSecond = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** utime + stime from /proc/<pid>/stat (fields 14 and 15, after the parenthesised command name). */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicksPerSecond;
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
 * children's (cutime + cstime, fields 16 and 17) and its living children's.
 * For Postgres' postmaster that is every backend, however short-lived.
 */
export function processTreeCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const reaped = ((Number(fields[13]) + Number(fields[14])) * 1000) / clockTicksPerSecond;
  const children = spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean).map(Number);
  return cpuMs(pid) + reaped + children.reduce((sum, child) => sum + (() => { try { return cpuMs(child); } catch { return 0; } })(), 0);
}

/** The oldest process of that exact name (pgrep -o -x), if any: the machine's Postgres postmaster, its NATS server. */
export function serverPid(name: string): number | undefined {
  const found = spawnSync('pgrep', ['-o', '-x', name], { encoding: 'utf8' }).stdout.trim();
  return found ? Number(found) : undefined;
}
