import { readFileSync } from 'node:fs';

/** What /proc says of CPU time (Linux), in ms. Both readers answer undefined where there is no /proc. */

/** USER_HZ: the unit of /proc's CPU times; 100 on every Linux we run on. */
const ticksPerSecond = 100;

/**
 * A process's CPU so far from /proc/<pid>/stat, after the parenthesised
 * command name: its own, every thread of it (utime + stime, fields 14 and
 * 15), and its reaped children's (cutime + cstime, 16 and 17); undefined
 * once it is gone.
 */
export function processTimes(pid: number): { ownMs: number; reapedChildrenMs: number } | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    const ms = (a: number, b: number) => ((Number(fields[a]) + Number(fields[b])) * 1000) / ticksPerSecond;
    return { ownMs: ms(11, 12), reapedChildrenMs: ms(13, 14) };
  } catch {
    return undefined;
  }
}

/** A process's own CPU so far, every thread of it; undefined once it is gone. */
export const processCpuMs = (pid: number): number | undefined => processTimes(pid)?.ownMs;

/** CPU the whole machine has spent busy (user, nice, system, irq, softirq, steal from /proc/stat's first line), summed over its cores. */
export function machineBusyMs(stat = '/proc/stat'): number | undefined {
  try {
    const ticks = readFileSync(stat, 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = ticks;
    return ((user + nice + system + irq + softirq + steal) * 1000) / ticksPerSecond;
  } catch {
    return undefined;
  }
}
