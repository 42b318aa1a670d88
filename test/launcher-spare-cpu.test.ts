// Protects test mode's yielding to live under `npm start` (scripts/launcher/spareCpu.ts): the budget follows what the rest of the machine leaves over, between its floor and its ceiling, down at once and up by halves; and on this machine's own control groups, busy work outside the group really shrinks its quota.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openCpuBudget, type CpuBudget } from '../scripts/launcher/cpuBudget.js';
import { followSpareCpu, nextCores, spareCores, sparePolicy, type SpareFollower } from '../scripts/launcher/spareCpu.js';

const twoCores = sparePolicy(0.25, 2);

describe('test mode on the CPU live leaves over', () => {
  it('when the rest of the machine is idle, then test mode gets its ceiling; busy past the share, its floor; between, what keeps the machine at the share', () => {
    expect(twoCores).toEqual({ ceiling: 0.25, floor: 0.05, share: 0.6, cores: 2 });
    expect(spareCores(twoCores, 170)).toBe(0.25);
    expect(spareCores(twoCores, 1_560)).toBe(0.05);
    expect(spareCores(twoCores, 1_100)).toBeCloseTo(0.1, 6);
    // A ceiling under the floor is the floor too: TEST_MODE_CPU=0.02 is never raised.
    expect(sparePolicy(0.02, 2)).toMatchObject({ ceiling: 0.02, floor: 0.02 });
  });

  it('when the wanted budget falls, then it is applied at once; when it rises, by half the way per step', () => {
    expect(nextCores(0.25, 0.05)).toBe(0.05);
    expect(nextCores(0.05, 0.25)).toBeCloseTo(0.15, 6);
    expect(nextCores(0.15, 0.25)).toBeCloseTo(0.2, 6);
  });

  describe('following a machine', () => {
    let follower: SpareFollower | undefined;
    afterEach(() => follower?.stop());

    it('when the machine turns busy and then idle again, then the group is resized to its floor and climbs back toward its ceiling', async () => {
      const sizes: number[] = [];
      let busyMsPerSecond = 1_900;
      follower = followSpareCpu({ resize: (cores) => sizes.push(cores), usedMs: () => 0 }, twoCores, { intervalMs: 20, readMachineMs: cpuCounter(() => busyMsPerSecond) });
      await until(() => follower!.cores() === 0.05);
      expect(sizes[0]).toBe(0.05);
      busyMsPerSecond = 100;
      await until(() => follower!.cores() > 0.24);
      // Each step up is half the way to the ceiling: never a jump from the floor to it.
      const climb = sizes.slice(sizes.indexOf(0.05) + 1);
      expect(climb[0]).toBeCloseTo(0.15, 6);
      expect(climb.every((cores, i) => i === 0 || cores > climb[i - 1]!)).toBe(true);
    });

    it("when the group's own CPU is what keeps the machine busy, then it is not counted against it", async () => {
      // The machine is 1,200 ms/s busy, and 1,000 of them are the group's: the rest uses 200, so the ceiling holds.
      const sizes: number[] = [];
      follower = followSpareCpu({ resize: (cores) => sizes.push(cores), usedMs: cpuCounter(() => 1_000) }, twoCores, { intervalMs: 20, readMachineMs: cpuCounter(() => 1_200) });
      await new Promise((r) => setTimeout(r, 200));
      expect(Math.min(0.25, ...sizes)).toBeGreaterThan(0.24);
      expect(follower.cores()).toBeGreaterThan(0.24);
    });

    it("when a replica restarts and takes its CPU out of the group's total, then that is not read as the rest of the machine turning busy", async () => {
      // The rest uses 600 ms/s, so the ceiling holds; then the group's total falls by 5 s of CPU at once.
      let groupMs = 10_000;
      const sizes: number[] = [];
      follower = followSpareCpu({ resize: (cores) => sizes.push(cores), usedMs: () => groupMs }, twoCores, { intervalMs: 20, readMachineMs: cpuCounter(() => 600) });
      await new Promise((r) => setTimeout(r, 60));
      groupMs = 5_000;
      await new Promise((r) => setTimeout(r, 100));
      expect(sizes).toEqual([]);
      expect(follower.cores()).toBe(0.25);
    });
  });

  describe('on this machine’s own control groups', () => {
    const probe = openCpuBudget(0.25);
    const available = 'budget' in probe;
    if (available) probe.budget.close();
    let budget: CpuBudget | undefined;
    let follower: SpareFollower | undefined;
    const loops: ChildProcess[] = [];
    afterEach(async () => {
      follower?.stop();
      await Promise.all(loops.splice(0).map((loop) => new Promise((r) => (loop.once('exit', r), loop.kill('SIGKILL')))));
      budget?.close();
    });

    // Skipped only where the machine gives no writable CPU controller (then the launcher says so and relies on nice).
    it.skipIf(!available)('when two busy loops outside the group take both cores, then its quota falls to the floor', async () => {
      budget = (openCpuBudget(0.25) as { budget: CpuBudget }).budget;
      follower = followSpareCpu(budget, sparePolicy(0.25), { intervalMs: 100 });
      for (let i = 0; i < 2; i++) loops.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
      await until(() => follower!.cores() === 0.05, 5_000);
      const quota = existsSync(join(budget.path, 'cpu.cfs_quota_us'))
        ? readFileSync(join(budget.path, 'cpu.cfs_quota_us'), 'utf8').trim()
        : readFileSync(join(budget.path, 'cpu.max'), 'utf8').trim().split(' ')[0];
      expect(quota).toBe('5000');
    });
  });
});

async function until(condition: () => boolean, timeoutMs = 2_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A CPU total in ms that grows at `msPerSecond()` of real time, as /proc's do. */
function cpuCounter(msPerSecond: () => number): () => number {
  let total = 0;
  let at = performance.now();
  return () => {
    const now = performance.now();
    total += ((now - at) / 1000) * msPerSecond();
    at = now;
    return total;
  };
}
