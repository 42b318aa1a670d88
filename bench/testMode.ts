/**
 * Test mode does not starve live (issue #26, contract §14 "Nothing a test
 * key sends can read, change or slow live data"). One platform, one partner:
 * live orders at a steady rate, each timed, in rounds of a quiet window and
 * a loaded one, while a test key of the same partner is saturated in the
 * loaded windows (many connections ordering as fast as they can; the load
 * runs in a child process so its own CPU is not the live timer's). Windows
 * alternate so that the machine's drift and its sporadic stalls fall on
 * both sides alike; each side pools its windows, and the quiet side split
 * in two (odd and even rounds) measures the run's own noise.
 *
 *   npm run bench -- --only test-mode
 *   BENCH_TEST_MODE_ROUNDS (default 6), BENCH_TEST_MODE_SECONDS (default 10, each window),
 *   BENCH_TEST_MODE_WARMUP_SECONDS (default 15, live orders before the first window, not measured),
 *   BENCH_TEST_MODE_LIVE_RATE (default 10/s), BENCH_TEST_MODE_CONNECTIONS (default 16; 0: no test load in the
 *   "beside" windows, so the verdict measures its own false alarms),
 *   BENCH_TEST_MODE_REPLICAS=off (one process per service serves both modes), TEST_MODE_NICE (default 19),
 *   TEST_MODE_CPU (default 0.25 cores for the four replicas together; off: nice alone),
 *   TEST_MODE_CPU_ADAPTIVE (default on: that budget shrinks while the rest of the machine is busy; off: fixed),
 *   BENCH_TEST_MODE_BACKGROUND=nice|idle (two busy loops at nice 19, or SCHED_IDLE, through every window: what other
 *   work on the cores costs live at the lowest priority, whoever runs it),
 *   BENCH_TEST_MODE_PROBE_SECONDS (default 20: commits timed on the idle platform's database first, the disk's own floor),
 *   BENCH_TEST_MODE_REFUSAL_SECONDS (default 10), BENCH_TEST_MODE_PROFILE=1 (a V8 CPU profile of the gateway
 *   during the refusal phase, support/cpuProfiler.mjs; its path is logged)
 */
import { fork, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launcherConfig } from '../scripts/launcher/config.js';
import { repoRoot } from '../scripts/launcher/supervisor.js';
import { buildCompiled, log, startBenchPlatform, writeSection, type BenchPlatform } from './support/benchPlatform.js';
import { commitLatency } from './support/commitLatency.js';
import { cpuMs, machineBusyMs, processTreeCpuMs, serverPid } from './support/processStats.js';

const reportFile = join(repoRoot, 'docs', 'benchmarks.md');
const phaseSeconds = Number(process.env.BENCH_TEST_MODE_SECONDS ?? 10);
const seconds = phaseSeconds;
const rounds = Number(process.env.BENCH_TEST_MODE_ROUNDS ?? 6);
const probeSeconds = Number(process.env.BENCH_TEST_MODE_PROBE_SECONDS ?? 20);
const warmupSeconds = Number(process.env.BENCH_TEST_MODE_WARMUP_SECONDS ?? 15);
const liveRate = Number(process.env.BENCH_TEST_MODE_LIVE_RATE ?? 10);
const connections = Number(process.env.BENCH_TEST_MODE_CONNECTIONS ?? 16);
/** A live order slower than this is logged with its moment in the window. */
const slowMs = 200;

interface Phase {
  label: string;
  live: { sent: number; created: number; p50: number; p99: number; max: number };
  /** Every live order's latency, sorted (pooled phases concatenate them). */
  latencies: number[];
  /** The test load's answers during the timed live window. */
  test: TestCounts | null;
  elapsedS: number;
  /** CPU (user + system) each platform process used per second of the timed live window, in ms/s (1000 = one core). */
  cpu: Record<string, number>;
  /** CPU of the benchmark's own processes over the same window, ms/s: the live timer (this process) and the test load (its child). */
  bench: { timer: number; load: number };
  /** The whole machine's busy CPU over the window, ms/s (2000 = both cores of these machines). */
  machine: number;
  /** Test mode's CPU budget, in cores, sampled every 0.5 s through the window (empty without one). */
  budget: number[];
}

/**
 * The servers the platform shares with this machine: Postgres with every
 * backend it forked, NATS, Redis. On a quiet machine their CPU is the
 * platform's, and a test order's share of Postgres is billed to no process
 * of ours.
 */
const servers = { postgres: serverPid('postgres'), nats: serverPid('nats-server'), redis: serverPid('redis-server') };

function cpuOf(bench: BenchPlatform): Record<string, number> {
  const read = (of: () => number) => { try { return of(); } catch { return NaN; } };
  return {
    ...Object.fromEntries(Object.entries(bench.pids()).map(([name, pid]) => [name, read(() => cpuMs(pid))])),
    ...Object.fromEntries(Object.entries(servers).map(([name, pid]) => [name, pid ? read(() => processTreeCpuMs(pid)) : NaN])),
  };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

async function post(url: string, key: string, body: unknown): Promise<number> {
  const answer = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify(body) });
  await answer.arrayBuffer();
  return answer.status;
}

const orderBody = (planId: string, label: string, i: number) => ({
  clientRequestId: `${label}-${Date.now()}-${i}-${Math.random().toString(36).slice(2, 8)}`,
  planId,
  email: 'traveller@example.com',
  phoneNumber: '+33612345678',
});

interface TestCounts {
  sent: number;
  created: number;
  limited: number;
}

/** The saturating test load, in a child process (bench/support/testLoadWorker.ts) so its CPU is not the timer's. */
async function startTestLoad(url: string, saturate: { key: string; planId: string }): Promise<{ pid: number; counts(): Promise<TestCounts>; stop(): Promise<TestCounts> }> {
  const child = fork(fileURLToPath(new URL('./support/testLoadWorker.ts', import.meta.url)), [url, saturate.key, saturate.planId, String(connections)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`test load exited with ${code}`))));
  exited.catch(() => undefined);
  const answer = (question: string) =>
    Promise.race([
      new Promise<TestCounts>((resolve) => {
        child.once('message', (counts) => resolve(counts as TestCounts));
        child.send(question);
      }),
      exited,
    ]);
  await Promise.race([new Promise((resolve) => child.once('message', resolve)), exited]);
  return { pid: child.pid!, counts: () => answer('counts'), stop: () => answer('stop') };
}

/** Live orders at `liveRate`/s for `seconds`, each timed; meanwhile `saturate` (if any) runs in a child process until they are done. */
async function phase(bench: BenchPlatform, label: string, live: { key: string; planId: string }, saturate?: { key: string; planId: string }, seconds = phaseSeconds): Promise<Phase> {
  const load = saturate ? await startTestLoad(`${bench.publicUrl}/api/v1/partner/orders`, saturate) : undefined;
  if (load) await new Promise((r) => setTimeout(r, 2_000));
  const latencies: number[] = [];
  /** When in the window the slow ones were sent: a tail that gathers at a moment has a cause to find. */
  const slow: string[] = [];
  let created = 0;
  const cpuBefore = cpuOf(bench);
  const machineBefore = machineBusyMs() ?? NaN;
  const ownCpuBefore = process.cpuUsage();
  const loadCpuBefore = load ? cpuMs(load.pid) : 0;
  const testBefore = load ? await load.counts() : null;
  const timers: Array<Promise<void>> = [];
  const quotas = sampleQuota();
  const startedAt = performance.now();
  for (let i = 0; i < seconds * liveRate; i++) {
    const due = startedAt + (i * 1000) / liveRate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    timers.push(
      (async () => {
        const sentAt = performance.now();
        const status = await post(`${bench.publicUrl}/api/v1/partner/orders`, live.key, orderBody(live.planId, 'live', i)).catch(() => 0);
        latencies.push(performance.now() - sentAt);
        if (performance.now() - sentAt > slowMs) slow.push(`${((sentAt - startedAt) / 1000).toFixed(1)} s: ${(performance.now() - sentAt).toFixed(0)} ms`);
        if (status === 201) created += 1;
      })(),
    );
  }
  await Promise.all(timers);
  const elapsedS = (performance.now() - startedAt) / 1000;
  const cpuAfter = cpuOf(bench);
  const machine = ((machineBusyMs() ?? NaN) - machineBefore) / elapsedS;
  const cpu = Object.fromEntries(Object.keys(cpuAfter).map((name) => [name, (cpuAfter[name]! - (cpuBefore[name] ?? 0)) / elapsedS]));
  const own = process.cpuUsage(ownCpuBefore);
  const timerCpu = (own.user + own.system) / 1000 / elapsedS;
  const loadCpu = load ? (cpuMs(load.pid) - loadCpuBefore) / elapsedS : 0;
  const testAfter = load ? await load.counts() : null;
  await load?.stop();
  // The test load over the timed window only, so it divides the window's CPU.
  const test = testBefore && testAfter ? { sent: testAfter.sent - testBefore.sent, created: testAfter.created - testBefore.created, limited: testAfter.limited - testBefore.limited } : null;
  latencies.sort((a, b) => a - b);
  const budgetSeries = quotas.stop();
  log(`test-mode: ${label}: test mode's budget every 0.5 s, cores: ${budgetSeries.join(' ') || 'none'}`);
  log(`test-mode: ${label}: live p50 ${percentile(latencies, 50).toFixed(0)} p99 ${percentile(latencies, 99).toFixed(0)} max ${(latencies.at(-1) ?? 0).toFixed(0)} ms${slow.length ? `; over ${slowMs} ms: ${slow.join(', ')}` : ''}`);
  return {
    label,
    live: { sent: latencies.length, created, p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies.at(-1) ?? 0 },
    latencies,
    test,
    elapsedS,
    cpu,
    bench: { timer: timerCpu, load: loadCpu },
    machine,
    budget: budgetSeries.map(Number),
  };
}

/** The launcher runs in this process, so test mode's CPU budget is its group: its quota, in cores, every 0.5 s. */
function sampleQuota(): { stop(): string[] } {
  const group = `/sys/fs/cgroup/cpu/esim-test-mode-${process.pid}/cpu.cfs_quota_us`;
  const series: string[] = [];
  const read = () => {
    try {
      series.push((Number(readFileSync(group, 'utf8')) / 100_000).toFixed(2));
    } catch {
      // no budget (v2, unavailable, off): nothing to sample
    }
  };
  read();
  const timer = setInterval(read, 500);
  return {
    stop() {
      clearInterval(timer);
      return series;
    },
  };
}

/** Windows of one kind as one phase: their latencies pooled, their CPU per second over their summed time, their test counts added. */
function pooled(label: string, windows: Phase[]): Phase {
  const latencies = windows.flatMap((w) => w.latencies).sort((a, b) => a - b);
  const elapsedS = windows.reduce((sum, w) => sum + w.elapsedS, 0);
  const perSecond = (of: (w: Phase) => number) => windows.reduce((sum, w) => sum + of(w) * w.elapsedS, 0) / elapsedS;
  const names = Object.keys(windows[0]!.cpu);
  const tests = windows.map((w) => w.test).filter((t): t is TestCounts => t !== null);
  return {
    label,
    live: { sent: latencies.length, created: windows.reduce((sum, w) => sum + w.live.created, 0), p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies.at(-1) ?? 0 },
    latencies,
    test: tests.length ? { sent: tests.reduce((s, t) => s + t.sent, 0), created: tests.reduce((s, t) => s + t.created, 0), limited: tests.reduce((s, t) => s + t.limited, 0) } : null,
    elapsedS,
    cpu: Object.fromEntries(names.map((name) => [name, perSecond((w) => w.cpu[name] ?? NaN)])),
    bench: { timer: perSecond((w) => w.bench.timer), load: perSecond((w) => w.bench.load) },
    machine: perSecond((w) => w.machine),
    budget: windows.flatMap((w) => w.budget),
  };
}

/**
 * "Live p99 unchanged within noise" (#26), read off this run: the noise is
 * the spread of live p99 between the quiet windows of odd and of even
 * rounds; the loaded p99 is within it when it is no higher than the worse
 * of the two plus that spread.
 */
function verdict(odd: Phase, even: Phase, beside: Phase): string {
  const quiet = [odd.live.p99, even.live.p99];
  const noise = Math.abs(quiet[0]! - quiet[1]!);
  const bound = Math.max(...quiet) + noise;
  const within = beside.live.p99 <= bound;
  return `Live p99 beside the saturated test key: ${beside.live.p99.toFixed(0)} ms (p50 ${beside.live.p50.toFixed(0)}); quiet windows of odd and even rounds ${quiet.map((q) => q.toFixed(0)).join(' and ')} ms (p50 ${odd.live.p50.toFixed(0)} and ${even.live.p50.toFixed(0)}), so this run's noise is ${noise.toFixed(0)} ms and the bound ${bound.toFixed(0)} ms: **${within ? 'within noise' : 'outside noise'}**.`;
}

const refusalSeconds = Number(process.env.BENCH_TEST_MODE_REFUSAL_SECONDS ?? 10);

/** The 429 path alone: one test key hammered on a cheap route, almost every request refused; the gateway's (and Redis's) CPU per request. */
async function refusalCost(bench: BenchPlatform, testKey: string, profileDir: string | undefined) {
  const load = await startTestLoad(`${bench.publicUrl}/api/v1/partner/orders/ord_00000000000000000000000000`, { key: testKey, planId: '-' });
  await new Promise((r) => setTimeout(r, 1_000));
  const gatewayPid = bench.pids().gateway!;
  const redisPid = redisServerPid();
  if (profileDir) process.kill(gatewayPid, 'SIGUSR2');
  const before = { counts: await load.counts(), gateway: cpuMs(gatewayPid), redis: redisPid ? cpuMs(redisPid) : 0 };
  await new Promise((r) => setTimeout(r, refusalSeconds * 1000));
  const after = { counts: await load.counts(), gateway: cpuMs(gatewayPid), redis: redisPid ? cpuMs(redisPid) : 0 };
  if (profileDir) {
    process.kill(gatewayPid, 'SIGUSR2');
    log(`test-mode: the gateway's CPU profile of the refusal phase is written to ${profileDir}`);
  }
  await load.stop();
  const sent = after.counts.sent - before.counts.sent;
  return {
    sent,
    created: after.counts.created - before.counts.created,
    limited: after.counts.limited - before.counts.limited,
    gatewayMsPerRequest: (after.gateway - before.gateway) / Math.max(1, sent),
    // Redis is shared with the other users of this machine: an upper bound.
    redisMsPerRequest: redisPid ? (after.redis - before.redis) / Math.max(1, sent) : NaN,
  };
}

function redisServerPid(): number | undefined {
  const found = spawnSync('pgrep', ['-o', 'redis-server'], { encoding: 'utf8' }).stdout.trim();
  return found ? Number(found) : undefined;
}

const sagaProcesses = ['wallet', 'orders', 'provisioning', 'webhooks', 'supplier-sim', 'wallet-test', 'orders-test', 'provisioning-test', 'webhooks-test'];

/**
 * What the test load cost, as counts that compare across runs on a shared
 * machine: the gateway's extra CPU per test request (most of them 429s) and
 * the saga's extra CPU per test order let through.
 */
function costLine(alone: Phase, beside: Phase): string {
  const extraMs = (names: string[]) => names.reduce((sum, name) => sum + ((beside.cpu[name] ?? 0) - (alone.cpu[name] ?? 0)), 0) * beside.elapsedS;
  const test = beside.test!;
  const saga = sagaProcesses.filter((name) => name in beside.cpu);
  const perOrder = (names: string[]) => (extraMs(names) / Math.max(1, test.created)).toFixed(1);
  return `Cost of the test load over the window: gateway +${(extraMs(['gateway']) / Math.max(1, test.sent)).toFixed(3)} ms CPU per test request (${test.sent} requests, ${test.limited} of them 429); saga (${saga.join(', ')}) +${perOrder(saga)} ms CPU per test order (${test.created} orders), Postgres +${perOrder(['postgres'])} and NATS +${perOrder(['nats'])} ms per test order, outside any budget.`;
}

/** What test mode's budget was while each side was timed (the launcher moves it, TEST_MODE_CPU_ADAPTIVE). */
function budgetLine(alone: Phase, beside: Phase): string {
  const of = (p: Phase) => (p.budget.length ? `mean ${(p.budget.reduce((a, b) => a + b, 0) / p.budget.length).toFixed(2)} cores (${Math.min(...p.budget).toFixed(2)}–${Math.max(...p.budget).toFixed(2)})` : 'none');
  return `Test mode's CPU budget, sampled every 0.5 s: live alone ${of(alone)}; beside the saturated key ${of(beside)}.`;
}

/** Two busy loops at the lowest priority `nice` (or SCHED_IDLE) offers, one per core of these machines. */
function startBackground(kind: string | undefined): { label: string; stop(): void } | undefined {
  if (kind !== 'nice' && kind !== 'idle') return undefined;
  const loops = [0, 1].map(() =>
    kind === 'nice' ? spawn('nice', ['-n', '19', process.execPath, '-e', 'for (;;) {}'], { stdio: 'ignore' }) : spawn('chrt', ['--idle', '0', process.execPath, '-e', 'for (;;) {}'], { stdio: 'ignore' }),
  );
  return { label: kind === 'nice' ? 'two busy loops at nice 19' : 'two busy loops at SCHED_IDLE', stop: () => loops.forEach((loop) => loop.kill('SIGKILL')) };
}

export async function testModeBenchmark(options: { mode?: 'compiled' | 'sources'; report?: boolean } = {}): Promise<void> {
  const mode = options.mode ?? 'compiled';
  if (mode === 'compiled') buildCompiled();
  // NODE_ENV=development, as bench/history.ts: production's provisioning refuses the simulator as a live upstream.
  const profileDir = process.env.BENCH_TEST_MODE_PROFILE === '1' ? await mkdtemp(join(tmpdir(), 'esim-test-mode-profile-')) : undefined;
  const profileEnv: Record<string, string> = profileDir
    ? { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${join(repoRoot, 'bench', 'support', 'cpuProfiler.mjs')}`.trim(), CPU_PROFILE_DIR: profileDir }
    : {};
  // As `npm start` runs it (TEST_MODE_REPLICAS=on): test mode on its own replicas at TEST_MODE_NICE within TEST_MODE_CPU; BENCH_TEST_MODE_REPLICAS=off measures one process per service.
  const replicas = process.env.BENCH_TEST_MODE_REPLICAS === 'off' ? undefined : launcherConfig({ ...process.env, TEST_MODE_REPLICAS: 'on' }).testModeReplicas;
  const bench = await startBenchPlatform({ NODE_ENV: 'development', SUPPLIER_LATENCY_MS: '0', ...profileEnv }, { mode, testModeReplicas: replicas });
  const background = startBackground(process.env.BENCH_TEST_MODE_BACKGROUND);
  let failed = true;
  try {
    log(`test-mode: the disk's own floor, one commit every 20 ms for ${probeSeconds} s on the idle platform's database`);
    const floor = await commitLatency(bench.databaseUrl, probeSeconds);
    const partner = await bench.onboard();
    const admin = { 'content-type': 'application/json', authorization: `Bearer ${bench.adminToken}` };
    const topup = await fetch(`${bench.adminUrl}/admin/v1/partners/${partner.partnerId}/wallet/topups`, { method: 'POST', headers: admin, body: JSON.stringify({ amount: 100_000_000, reference: 'BENCH-LIVE' }) });
    if (topup.status !== 201) throw new Error(`top-up answered ${topup.status}`);
    const login = (await (await fetch(`${bench.publicUrl}/api/v1/partner/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: partner.email, password: partner.password }) })).json()) as { token: string };
    const issued = await fetch(`${bench.publicUrl}/api/v1/partner/me/test-keys`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${login.token}` }, body: '{}' });
    if (issued.status !== 201) throw new Error(`test key answered ${issued.status}: ${await issued.text()}`);
    const testKey = ((await issued.json()) as { key: string }).key;
    for (let i = 0; i < 10; i++) {
      const credit = await post(`${bench.publicUrl}/api/v1/partner/test/wallet/credit`, testKey, { amount: 100_000_000 });
      if (credit !== 201) throw new Error(`test credit answered ${credit}`);
    }
    const plans = (await (await fetch(`${bench.publicUrl}/api/v1/partner/catalog?limit=1`, { headers: { authorization: `Bearer ${partner.apiKey}` } })).json()) as { data: Array<{ id: string }> };
    const planId = plans.data[0]!.id;

    // The first seconds after a start are JIT and connection warm-up, not the platform: unmeasured, so every window compares.
    log(`test-mode: warm-up, live orders at ${liveRate}/s for ${warmupSeconds} s (not measured)`);
    await phase(bench, 'warm-up', { key: partner.apiKey, planId }, undefined, warmupSeconds);
    const quietWindows: Phase[] = [];
    const loadedWindows: Phase[] = [];
    for (let round = 1; round <= rounds; round++) {
      log(`test-mode: round ${round} of ${rounds}: live alone, then beside the saturated test key (${connections} connections), ${seconds} s each at ${liveRate}/s`);
      quietWindows.push(await phase(bench, `quiet ${round}`, { key: partner.apiKey, planId }));
      loadedWindows.push(await phase(bench, `loaded ${round}`, { key: partner.apiKey, planId }, { key: testKey, planId }));
      // The test saga drains before the next quiet window, so that window times live alone.
      await new Promise((r) => setTimeout(r, 5_000));
    }
    const alone = pooled(`live alone (${rounds} windows)`, quietWindows);
    const odd = pooled('live alone, odd rounds', quietWindows.filter((_, i) => i % 2 === 0));
    const even = pooled('live alone, even rounds', quietWindows.filter((_, i) => i % 2 === 1));
    const beside = pooled(`live + test key saturated (${connections} connections, ${rounds} windows)`, loadedWindows);

    log(`test-mode: what a refusal costs (${connections} connections on one test key, GET, ${refusalSeconds} s)`);
    const refusals = await refusalCost(bench, testKey, profileDir);

    const row = (p: Phase) =>
      `| ${p.label} | ${p.live.sent} | ${p.live.created} | ${p.live.p50.toFixed(0)} | ${p.live.p99.toFixed(0)} | ${p.live.max.toFixed(0)} | ${p.test ? `${p.test.sent} sent, ${p.test.created} × 201 (${(p.test.created / p.elapsedS).toFixed(1)}/s), ${p.test.limited} × 429` : '—'} |`;
    const body = [
      `### Test mode beside live (\`npm run bench -- --only test-mode\`, ${new Date().toISOString().slice(0, 10)}, ${mode})`,
      '',
      `One partner: live orders at ${liveRate}/s, each timed, in ${rounds} rounds of ${seconds} s alone and then ${seconds} s while ${connections} connections order with one test key of the same partner as fast as they can (\`RATE_LIMIT_PER_TEST_KEY\` at its default 25/1s). Live p50/p99 are per request, in ms, on this shared 2-core machine. ${replicas ? `Test mode runs on its own replicas of wallet, orders, provisioning and webhooks at nice ${replicas.nice}, ${replicas.cpu ? (replicas.adaptive ? `within a CPU budget of at most ${replicas.cpu} cores for the four together, shrunk toward 0.05 while the rest of the machine keeps it busy (TEST_MODE_CPU_ADAPTIVE=on)` : `within a fixed CPU budget of ${replicas.cpu} cores for the four together (TEST_MODE_CPU_ADAPTIVE=off)`) : 'without a CPU budget (TEST_MODE_CPU=off)'}, as \`npm start\` runs it.` : 'One process per service serves both modes (BENCH_TEST_MODE_REPLICAS=off).'}${background ? ` Throughout every phase, ${background.label} (BENCH_TEST_MODE_BACKGROUND).` : ''}`,
      '',
      '| phase | live sent | live 201 | live p50 | live p99 | live max | test load |',
      '|---|---:|---:|---:|---:|---:|---|',
      row(alone),
      row(odd),
      row(even),
      row(beside),
      '',
      verdict(odd, even, beside),
      '',
      `The disk's own floor, before any order: ${floor.commits} single-row commits on the idle platform's database, p50 ${floor.p50.toFixed(1)} ms, p99 ${floor.p99.toFixed(1)} ms, max ${floor.max.toFixed(0)} ms, ${floor.over50ms} over 50 ms (bench/support/commitLatency.ts).`,
      '',
      'CPU of each platform process over the timed live window, ms per second (1000 = one core), with the machine\'s Postgres (postmaster and every backend), NATS and Redis; then the benchmark\'s own: the live timer and the test load, which runs in a child process so its CPU never delays the timer\'s event loop; then the whole machine\'s busy CPU (/proc/stat, 2000 = both cores):',
      '',
      `| phase | ${Object.keys(alone.cpu).join(' | ')} | all | bench: live timer | bench: test load | machine |`,
      `|---|${Object.keys(alone.cpu).map(() => '---:').join('|')}|---:|---:|---:|---:|`,
      ...[alone, beside].map((p) => `| ${p.label} | ${Object.keys(alone.cpu).map((name) => (p.cpu[name] ?? NaN).toFixed(0)).join(' | ')} | ${Object.values(p.cpu).reduce((a, b) => a + b, 0).toFixed(0)} | ${p.bench.timer.toFixed(0)} | ${p.bench.load.toFixed(0)} | ${p.machine.toFixed(0)} |`),
      '',
      costLine(alone, beside),
      '',
      budgetLine(alone, beside),
      '',
      `What a refusal costs: ${connections} connections GET one order with the test key for ${refusalSeconds} s, no live load: ${refusals.sent} requests, ${refusals.limited} × 429 (the ${refusals.sent - refusals.limited} let through answer 404), gateway ${refusals.gatewayMsPerRequest.toFixed(3)} ms CPU per request, Redis ${refusals.redisMsPerRequest.toFixed(3)} ms per request.`,
    ].join('\n');
    log(body);
    if (options.report !== false) await writeSection(reportFile, 'test-mode', body);
    failed = false;
  } finally {
    background?.stop();
    await bench.stop(failed);
  }
}
