/**
 * The saga benchmark (issue #29, "The saga at the speed of the database"):
 * the targets measured in one run, on the compiled platform with
 * production's sampler (parentbased_traceidratio 0.1), one partner, a
 * webhook receiver on loopback and the simulator answering at once.
 *
 *   1. pgbench TPC-B at 16 connections on the same server: the anchor;
 *   2. cost: orders at 10/s until every `provision.*` webhook arrived; CPU
 *      per order of every platform process, Postgres's backends and NATS
 *      (the simulator reported apart, it stands in for the supplier);
 *   3. burst: 16 connections as fast as they can for BENCH_SAGA_BURST_S
 *      (60): orders/s against pgbench, create p99, and how long after the
 *      last 201 the last `provision.*` webhook arrives; CPU per order at
 *      saturation, settling included;
 *   4. steady: BENCH_SAGA_STEADY_RATE (50) orders/s for BENCH_SAGA_STEADY_S
 *      (300): each order's 201 → its `provision.*` webhook at the receiver.
 *
 *   npm run bench -- --only saga
 *   BENCH_SAGA_BURST_S=20 BENCH_SAGA_STEADY_S=60 npm run bench -- --only saga --no-report   # a quick run
 */
import autocannon from 'autocannon';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { repoRoot } from '../scripts/launcher/supervisor.js';
import { cpuByProcess, natsPid } from './cost.js';
import { buildCompiled, log, startBenchPlatform, writeSection } from './support/benchPlatform.js';
import { pgbenchTps } from './support/pgbench.js';

const reportFile = join(repoRoot, 'docs', 'benchmarks.md');
const burstS = Number(process.env.BENCH_SAGA_BURST_S ?? 60);
const steadyS = Number(process.env.BENCH_SAGA_STEADY_S ?? 300);
const steadyRate = Number(process.env.BENCH_SAGA_STEADY_RATE ?? 50);
const costOrders = Number(process.env.BENCH_SAGA_COST_ORDERS ?? 200);
const costRate = 10;
const connections = 16;
// The simulator stands in for the outside supplier: its CPU is reported, not counted.
const notPlatform = new Set(['supplier-sim']);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface CpuFigure {
  orders: number;
  /** ms per order, by process. */
  byProcess: Record<string, number>;
  platform: number;
  simulator: number;
}

export interface SagaResult {
  pgbench: number;
  cost: CpuFigure;
  burst: { seconds: number; accepted: number; refused: number; perSecond: number; p50: number; p99: number; lastWebhookAfterMs: number; settleRate: number; cpu: CpuFigure };
  steady: { rate: number; seconds: number; accepted: number; refused: number; p50: number; p99: number; max: number; missing: number };
}

export async function sagaBenchmark(options: { mode?: 'compiled' | 'sources'; report?: boolean } = {}): Promise<SagaResult> {
  const mode = options.mode ?? 'compiled';
  if (mode === 'compiled' && !process.env.BENCH_NO_BUILD) buildCompiled();
  // The anchor first, before the platform's pools hold connections.
  log(`saga: pgbench TPC-B at ${connections} clients, 10 s`);
  const pgbench = pgbenchTps(connections, 10);

  // provision.* arrivals by clientRequestId: the phases tell their orders apart by its prefix.
  const arrivals = new Map<string, number>();
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      res.writeHead(204).end();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; data: { order?: { clientRequestId?: string } } };
      const id = body.data.order?.clientRequestId;
      if (body.type.startsWith('provision.') && id && !arrivals.has(id)) arrivals.set(id, at);
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

  const bench = await startBenchPlatform(
    { SUPPLIER_LATENCY_MS: '0', WEBHOOK_ALLOW_INSECURE_URLS: 'true', OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' },
    { mode },
  );
  const database = new URL(bench.databaseUrl).pathname.slice(1);
  const pool = new pg.Pool({ connectionString: bench.databaseUrl, max: 1 });
  const nats = natsPid();
  const backends = new Map<number, number>();
  const cpuNow = () => cpuByProcess(pool, database, bench.pids(), nats, backends);
  const cpuFigure = (after: Record<string, number>, before: Record<string, number>, orders: number): CpuFigure => {
    const byProcess = Object.fromEntries(Object.keys(after).map((k) => [k, (after[k]! - (before[k] ?? 0)) / orders]));
    const platform = Object.entries(byProcess).filter(([k]) => !notPlatform.has(k)).reduce((a, [, v]) => a + v, 0);
    return { orders, byProcess, platform, simulator: byProcess['supplier-sim'] ?? 0 };
  };
  const settled = async (prefix: string, expected: number, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    const count = () => [...arrivals.keys()].filter((k) => k.startsWith(prefix)).length;
    while (count() < expected) {
      if (Date.now() > deadline) throw new Error(`${prefix}: ${count()}/${expected} provision.* webhooks after ${timeoutMs / 1000} s`);
      await sleep(100);
    }
    return Math.max(...[...arrivals].filter(([k]) => k.startsWith(prefix)).map(([, at]) => at));
  };
  let failed = false;
  try {
    const { partnerId, apiKey } = await bench.onboard();
    const asAdmin = { 'content-type': 'application/json', authorization: `Bearer ${bench.adminToken}` };
    const patched = await fetch(`${bench.adminUrl}/admin/v1/partners/${partnerId}`, { method: 'PATCH', headers: asAdmin, body: JSON.stringify({ webhookUrl: receiverUrl }) });
    if (patched.status !== 200) throw new Error(`webhook URL answered ${patched.status}: ${await patched.text()}`);
    for (let i = 0; i < 3; i++) {
      const topup = await fetch(`${bench.adminUrl}/admin/v1/partners/${partnerId}/wallet/topups`, { method: 'POST', headers: asAdmin, body: JSON.stringify({ amount: 100_000_000, reference: `BENCH-SAGA-${i}` }) });
      if (topup.status !== 201) throw new Error(`top-up answered ${topup.status}: ${await topup.text()}`);
    }
    const auth = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
    const plans = (await (await fetch(`${bench.publicUrl}/api/v1/partner/catalog?limit=1`, { headers: auth })).json()) as { data: Array<{ id: string }> };
    const planId = plans.data[0]!.id;
    const order = (clientRequestId: string) =>
      fetch(`${bench.publicUrl}/api/v1/partner/orders`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ clientRequestId, planId, email: 'bench@example.com', phoneNumber: '+33612345678' }),
      }).then(async (r) => (await r.arrayBuffer(), { status: r.status, at: performance.now() }));
    /** `n` orders at `rate`/s, each id `<prefix><i>`; resolves with the 201s' times by id. */
    let refused = 0;
    const paced = async (prefix: string, n: number, rate: number) => {
      const createdAt = new Map<string, number>();
      const startedAt = performance.now();
      const sent: Array<Promise<void>> = [];
      for (let i = 0; i < n; i++) {
        await sleep(Math.max(0, startedAt + (i * 1000) / rate - performance.now()));
        const id = `${prefix}${i}`;
        sent.push(order(id).then(({ status, at }) => void (status === 201 ? createdAt.set(id, at) : (refused += 1))));
      }
      await Promise.all(sent);
      return createdAt;
    };

    log('saga: warm-up, 20 orders');
    await paced('warm-', 20, 10);
    await settled('warm-', 20, 60_000);

    log(`saga: cost, ${costOrders} orders at ${costRate}/s`);
    const cost0 = await cpuNow();
    const costCreated = await paced('cost-', costOrders, costRate);
    await settled('cost-', costCreated.size, 180_000);
    const cost = cpuFigure(await cpuNow(), cost0, costCreated.size);

    log(`saga: burst, ${connections} connections for ${burstS} s`);
    const burst0 = await cpuNow();
    const burstResult = await autocannon({
      url: `${bench.publicUrl}/api/v1/partner/orders`,
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ clientRequestId: 'burst-[<id>]', planId, email: 'bench@example.com', phoneNumber: '+33612345678' }),
      idReplacement: true,
      connections,
      duration: burstS,
      timeout: 10,
    });
    const burstEnded = performance.now();
    const accepted = burstResult['2xx'];
    const lastWebhook = await settled('burst-', accepted, 900_000);
    const burstCpu = cpuFigure(await cpuNow(), burst0, accepted);
    const lastWebhookAfterMs = Math.max(0, lastWebhook - burstEnded);
    const burst = {
      seconds: burstS,
      accepted,
      refused: burstResult.non2xx,
      perSecond: accepted / burstS,
      p50: burstResult.latency.p50,
      p99: burstResult.latency.p99,
      lastWebhookAfterMs,
      settleRate: accepted / ((burstS * 1000 + lastWebhookAfterMs) / 1000),
      cpu: burstCpu,
    };

    log(`saga: steady, ${steadyRate}/s for ${steadyS} s`);
    refused = 0;
    const steadyCreated = await paced('steady-', steadyRate * steadyS, steadyRate);
    const steadyDeadline = Date.now() + 120_000;
    while ([...steadyCreated.keys()].some((id) => !arrivals.has(id)) && Date.now() < steadyDeadline) await sleep(250);
    const lags = [...steadyCreated].filter(([id]) => arrivals.has(id)).map(([id, at]) => arrivals.get(id)! - at).sort((a, b) => a - b);
    const steady = {
      rate: steadyRate,
      seconds: steadyS,
      accepted: steadyCreated.size,
      refused,
      p50: percentile(lags, 50),
      p99: percentile(lags, 99),
      max: lags.at(-1) ?? NaN,
      missing: steadyCreated.size - lags.length,
    };

    const result: SagaResult = { pgbench, cost, burst, steady };
    const text = formatSaga(result);
    process.stdout.write(`\n${text}\n`);
    if (options.report) await writeSection(reportFile, 'saga', `Measured ${new Date().toISOString()}, Node ${process.version}, ${mode}, production sampler (parentbased_traceidratio 0.1), simulator latency 0.\n\n${text}`);
    return result;
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    await pool.end();
    await bench.stop(failed);
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
}

const ms = (n: number) => `${Math.round(n)} ms`;
const met = (ok: boolean) => (ok ? 'met' : '**missed**');

export function formatSaga(r: SagaResult): string {
  const share = r.burst.perSecond / r.pgbench;
  const names = Object.keys(r.cost.byProcess).sort((a, b) => r.cost.byProcess[b]! - r.cost.byProcess[a]!);
  return [
    '| target | measured | |',
    '|---|---|---|',
    `| CPU per order ≤ 20 ms at 10 orders/s (platform, Postgres, NATS; simulator apart) | ${r.cost.platform.toFixed(1)} ms (simulator ${r.cost.simulator.toFixed(1)} ms), ${r.cost.orders} orders | ${met(r.cost.platform <= 20)} |`,
    `| CPU per order ≤ 15 ms at saturation | ${r.burst.cpu.platform.toFixed(1)} ms (simulator ${r.burst.cpu.simulator.toFixed(1)} ms), ${r.burst.accepted} orders | ${met(r.burst.cpu.platform <= 15)} |`,
    `| ≥ 10 % of pgbench TPC-B at ${connections} connections | ${r.burst.perSecond.toFixed(0)} orders/s ÷ ${r.pgbench.toFixed(0)} tps = ${(share * 100).toFixed(1)} % | ${met(share >= 0.1)} |`,
    `| create p99 ≤ 100 ms | p50 ${ms(r.burst.p50)}, p99 ${ms(r.burst.p99)} (${r.burst.refused} non-2xx) | ${met(r.burst.p99 <= 100)} |`,
    `| after a ${r.burst.seconds} s burst, the last webhook within 5 s of the last 201 | ${(r.burst.lastWebhookAfterMs / 1000).toFixed(1)} s (the saga settled ${r.burst.settleRate.toFixed(0)} orders/s over the burst and its tail) | ${met(r.burst.lastWebhookAfterMs <= 5_000)} |`,
    `| steady ${r.steady.rate}/s for ${r.steady.seconds} s: 201 → \`provision.*\` webhook p99 ≤ 1.5 s | p50 ${ms(r.steady.p50)}, p99 ${ms(r.steady.p99)}, max ${ms(r.steady.max)}; ${r.steady.accepted} orders accepted, ${r.steady.refused} refused, ${r.steady.missing} webhooks missing after 120 s | ${met(r.steady.p99 <= 1_500 && r.steady.missing === 0 && r.steady.refused === 0)} |`,
    '',
    'CPU per order by process (ms), at 10/s and over the burst with its settling:',
    '',
    `| | ${names.join(' | ')} |`,
    `|---|${names.map(() => '---:').join('|')}|`,
    `| 10/s | ${names.map((n) => r.cost.byProcess[n]!.toFixed(2)).join(' | ')} |`,
    `| burst | ${names.map((n) => (r.burst.cpu.byProcess[n] ?? 0).toFixed(2)).join(' | ')} |`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) await sagaBenchmark({ mode: process.argv.includes('--sources') ? 'sources' : 'compiled', report: !process.argv.includes('--no-report') });
