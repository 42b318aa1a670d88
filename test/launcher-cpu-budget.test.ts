// Protects test mode's CPU budget under `npm start` (scripts/launcher/cpuBudget.ts): the control group it writes on either cgroup version, the sweep of groups whose launcher died, and, where this machine lets us, that the kernel really holds a busy process to it.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openCpuBudget, type CpuBudget } from '../scripts/launcher/cpuBudget.js';
import { processCpuMs } from '../scripts/launcher/procStat.js';

const fakeRoot = () => mkdtempSync(join(tmpdir(), 'esim-cgroup-'));
const budgetOf = (result: ReturnType<typeof openCpuBudget>): CpuBudget => {
  if (!('budget' in result)) throw new Error(`no budget: ${result.unavailable}`);
  return result.budget;
};

describe("test mode's CPU budget", () => {
  it('when the cpu hierarchy is cgroup v1, then the group gets a quota of the cores per 100 ms period and a burst of one quota, and join writes the pid', () => {
    const root = fakeRoot();
    mkdirSync(join(root, 'cpu'));
    writeFileSync(join(root, 'cpu', 'cpu.cfs_quota_us'), '-1');
    mkdirSync(join(root, 'cpu', 'esim-test-mode-123'));
    writeFileSync(join(root, 'cpu', 'esim-test-mode-123', 'cpu.cfs_burst_us'), '0');
    const budget = budgetOf(openCpuBudget(0.25, root, 123));
    expect(budget.path).toBe(join(root, 'cpu', 'esim-test-mode-123'));
    const read = (file: string) => readFileSync(join(budget.path, file), 'utf8');
    expect([read('cpu.cfs_period_us'), read('cpu.cfs_quota_us'), read('cpu.cfs_burst_us')]).toEqual(['100000', '25000', '25000']);
    // The group weighs as little as v1 allows against the processes outside it.
    expect(read('cpu.shares')).toBe('2');
    budget.join(4242);
    expect(read('cgroup.procs')).toBe('4242');
    budget.resize(0.05);
    expect([read('cpu.cfs_quota_us'), read('cpu.cfs_burst_us')]).toEqual(['5000', '5000']);
  });

  it('when its processes have run, then usedMs is the CPU they used, read from /proc', () => {
    const root = fakeRoot();
    mkdirSync(join(root, 'cpu'));
    writeFileSync(join(root, 'cpu', 'cpu.cfs_quota_us'), '-1');
    const budget = budgetOf(openCpuBudget(0.25, root, 321));
    budget.join(process.pid);
    const own = process.cpuUsage();
    expect(budget.usedMs()).toBeGreaterThan(0);
    // /proc counts in 10 ms ticks: this process's own figure, within a tick or two.
    expect(Math.abs(budget.usedMs() - (own.user + own.system) / 1000)).toBeLessThan(50);
  });

  it('when cgroup v2 delegates cpu to the root’s children, then the group gets cpu.max', () => {
    const root = fakeRoot();
    writeFileSync(join(root, 'cgroup.controllers'), 'cpuset cpu io memory pids\n');
    writeFileSync(join(root, 'cgroup.subtree_control'), 'cpu memory\n');
    const budget = budgetOf(openCpuBudget(1.5, root, 77));
    expect(readFileSync(join(root, 'esim-test-mode-77', 'cpu.max'), 'utf8')).toBe('150000 100000');
    expect(readFileSync(join(root, 'esim-test-mode-77', 'cpu.weight'), 'utf8')).toBe('1');
    budget.resize(0.05);
    expect(readFileSync(join(root, 'esim-test-mode-77', 'cpu.max'), 'utf8')).toBe('5000 100000');
  });

  it('when v2 does not delegate cpu, or there is no cgroup at all, then the budget is unavailable and says where it looked', () => {
    const root = fakeRoot();
    writeFileSync(join(root, 'cgroup.controllers'), 'cpu memory\n');
    writeFileSync(join(root, 'cgroup.subtree_control'), 'memory\n');
    expect(openCpuBudget(0.25, root, 1)).toEqual({ unavailable: `no CPU controller under ${root} that this process may use` });
    expect(openCpuBudget(0.25, join(root, 'nothing-here'), 1)).toMatchObject({ unavailable: expect.stringContaining('no CPU controller') });
    expect(openCpuBudget(0, root, 1)).toEqual({ unavailable: 'a budget of 0 cores' });
  });

  it('when an earlier launcher died and left its empty group, then the next one removes it and keeps the groups of launchers still running', () => {
    const root = fakeRoot();
    mkdirSync(join(root, 'cpu'));
    writeFileSync(join(root, 'cpu', 'cpu.cfs_quota_us'), '-1');
    const dead = 2 ** 22 + 12345; // above pid_max's default range: no such process
    mkdirSync(join(root, 'cpu', `esim-test-mode-${dead}`));
    mkdirSync(join(root, 'cpu', `esim-test-mode-${process.pid}`));
    mkdirSync(join(root, 'cpu', 'someone-else'));
    openCpuBudget(0.25, root, 999_999_999);
    expect(existsSync(join(root, 'cpu', `esim-test-mode-${dead}`))).toBe(false);
    expect(existsSync(join(root, 'cpu', `esim-test-mode-${process.pid}`))).toBe(true);
    expect(existsSync(join(root, 'cpu', 'someone-else'))).toBe(true);
  });

  describe('on this machine’s own control groups', () => {
    const probe = openCpuBudget(0.1);
    const available = 'budget' in probe;
    if (available) probe.budget.close();
    let child: ReturnType<typeof spawn> | undefined;
    let budget: CpuBudget | undefined;
    afterEach(async () => {
      if (child && child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child!.once('exit', r));
        child.kill('SIGKILL');
        await exited;
      }
      // The kernel removes a dead process from its group a moment after it is reaped.
      for (let i = 0; i < 50 && budget && readFileSync(join(budget.path, 'cgroup.procs'), 'utf8').trim() !== ''; i++) await new Promise((r) => setTimeout(r, 20));
      budget?.close();
      expect(budget ? existsSync(budget.path) : false, 'the group is removed once empty').toBe(false);
    });

    // Skipped only where the machine gives no writable CPU controller (then the launcher says so and relies on nice).
    it.skipIf(!available)('when a busy process joins a budget of 0.1 cores, then the kernel holds it to about that', async () => {
      budget = budgetOf(openCpuBudget(0.1));
      child = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
      const pid = child.pid!;
      budget.join(pid);
      expect(readFileSync(`/proc/${pid}/cgroup`, 'utf8')).toContain(budget.path.split('/').at(-1));
      const cpuMs = () => processCpuMs(pid) ?? NaN;
      await new Promise((r) => setTimeout(r, 300));
      const before = cpuMs();
      await new Promise((r) => setTimeout(r, 2_000));
      // Unbudgeted, a busy loop takes a whole core (2,000 ms here); budgeted, 0.1 core plus one banked burst: about 210 ms.
      expect(cpuMs() - before).toBeLessThan(500);
    });

    // The kernel refuses a burst above the quota: a budget that shrinks must clear its old burst first.
    it.skipIf(!available)('when a budget shrinks below its burst, then the kernel takes the new quota and burst', () => {
      budget = budgetOf(openCpuBudget(0.25));
      budget.resize(0.05);
      const read = (v1: string, v2: string) => (existsSync(join(budget!.path, v1)) ? readFileSync(join(budget!.path, v1), 'utf8').trim() : readFileSync(join(budget!.path, v2), 'utf8').trim());
      expect(read('cpu.cfs_quota_us', 'cpu.max')).toMatch(/^5000( 100000)?$/);
      budget.resize(0.25);
      expect(read('cpu.cfs_quota_us', 'cpu.max')).toMatch(/^25000( 100000)?$/);
    });
  });
});
