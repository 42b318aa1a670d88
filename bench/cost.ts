/**
 * The cost benchmark (issue "Orders at the speed of the database"): what the
 * platform costs at rest and what one order costs, in the two figures that
 * stay comparable on a shared machine — CPU time read from /proc (every
 * service, the Postgres backends of the platform's database, NATS) and
 * Postgres's own counters for the platform's database (transactions, rows
 * read, sequential scans by table). Throughput is deliberately not its
 * business (bench/orders.ts is).
 *
 *   1. orders: `orders` orders at a steady rate with a webhook receiver on
 *      loopback, then the settling (every order's `provision.*` webhook
 *      received); the deltas divided by the number of orders accepted;
 *   2. idle: then the platform at rest for `idleS` seconds, nothing asked of
 *      it (after the load, so pools and JIT are warm as in production).
 */
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { repoRoot } from '../scripts/launcher/supervisor.js';
import { buildCompiled, log, startBenchPlatform, writeSection } from './support/benchPlatform.js';
import { cpuMs } from './support/processStats.js';
import { dbCounters, diffCounters, type DbCounters } from './support/pgCounters.js';

const reportFile = join(repoRoot, 'docs', 'benchmarks.md');

export interface CostOptions {
  idleS?: number;
  orders?: number;
  ratePerSecond?: number;
  mode?: 'compiled' | 'sources';
  report?: boolean;
}

/** CPU ms so far of each process we account for, by name; Postgres backends are summed under `postgres`. */
export async function cpuByProcess(pool: pg.Pool, database: string, pids: Record<string, number>, natsPid: number | undefined, seenBackends: Map<number, number>) {
  const out: Record<string, number> = {};
  for (const [name, pid] of Object.entries(pids)) out[name] = cpuMs(pid);
  if (natsPid) out.nats = cpuMs(natsPid);
  // Backends come and go (pool idle timeouts): the last reading of a gone backend still counts.
  const { rows } = await pool.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [database]);
  for (const { pid } of rows) {
    try {
      seenBackends.set(pid, cpuMs(pid));
    } catch {
      /* gone between the query and the read */
    }
  }
  out.postgres = [...seenBackends.values()].reduce((a, b) => a + b, 0);
  return out;
}

export const natsPid = () => {
  try {
    return Number(execFileSync('pgrep', ['-x', 'nats-server'], { encoding: 'utf8' }).trim().split('\n')[0]) || undefined;
  } catch {
    return undefined;
  }
};

const delta = (after: Record<string, number>, before: Record<string, number>) =>
  Object.fromEntries(Object.keys(after).map((k) => [k, after[k]! - (before[k] ?? 0)]));

export interface CostResult {
  idle: { seconds: number; coresByProcess: Record<string, number>; xactPerS: number; counters: DbCounters };
  orders: { n: number; cpuMsByProcess: Record<string, number>; counters: DbCounters };
}

export async function costBenchmark(options: CostOptions = {}): Promise<CostResult> {
  const idleS = options.idleS ?? Number(process.env.BENCH_IDLE_S ?? 60);
  const total = options.orders ?? Number(process.env.BENCH_COST_ORDERS ?? 100);
  const rate = options.ratePerSecond ?? Number(process.env.BENCH_COST_RATE ?? 5);
  // BENCH_NO_BUILD: dist/ as it is (to measure a build made earlier, say before a change).
  if ((options.mode ?? 'compiled') === 'compiled' && !process.env.BENCH_NO_BUILD) buildCompiled();
  let received = 0;
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(204).end();
      if ((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string }).type.startsWith('provision.')) received += 1;
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

  // BENCH_TRACES_SAMPLER (and _ARG): the services' sampler, e.g. production's parentbased_traceidratio 0.1; the default otherwise.
  const sampler = process.env.BENCH_TRACES_SAMPLER
    ? { OTEL_TRACES_SAMPLER: process.env.BENCH_TRACES_SAMPLER, ...(process.env.BENCH_TRACES_SAMPLER_ARG ? { OTEL_TRACES_SAMPLER_ARG: process.env.BENCH_TRACES_SAMPLER_ARG } : {}) }
    : {};
  const bench = await startBenchPlatform({ SUPPLIER_LATENCY_MS: '0', WEBHOOK_ALLOW_INSECURE_URLS: 'true', ...sampler }, { mode: options.mode ?? 'compiled' });
  const database = new URL(bench.databaseUrl).pathname.slice(1);
  const pool = new pg.Pool({ connectionString: bench.databaseUrl, max: 1 });
  const nats = natsPid();
  const backends = new Map<number, number>();
  let failed = false;
  try {
    const { partnerId, apiKey } = await bench.onboard();
    const asAdmin = { 'content-type': 'application/json', authorization: `Bearer ${bench.adminToken}` };
    const patched = await fetch(`${bench.adminUrl}/admin/v1/partners/${partnerId}`, { method: 'PATCH', headers: asAdmin, body: JSON.stringify({ webhookUrl: receiverUrl }) });
    if (patched.status !== 200) throw new Error(`webhook URL answered ${patched.status}: ${await patched.text()}`);
    const topup = await fetch(`${bench.adminUrl}/admin/v1/partners/${partnerId}/wallet/topups`, {
      method: 'POST',
      headers: asAdmin,
      body: JSON.stringify({ amount: 100_000_000, reference: 'BENCH-COST' }),
    });
    if (topup.status !== 201) throw new Error(`top-up answered ${topup.status}: ${await topup.text()}`);
    const auth = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
    const plans = (await (await fetch(`${bench.publicUrl}/api/v1/partner/catalog?limit=1`, { headers: auth })).json()) as { data: Array<{ id: string }> };
    // Warm-up: a few orders so JIT and pools are past their first use, then let everything settle.
    for (let i = 0; i < 5; i++) await placeOrder(bench.publicUrl, auth, plans.data[0]!.id, `warm-${i}`);

    log(`cost: ${total} orders at ${rate}/s, then settling`);
    received = 0;
    const cpu0 = await cpuByProcess(pool, database, bench.pids(), nats, backends);
    const db0 = await dbCounters(pool, database);
    const startedAt = Date.now();
    const placed: Array<Promise<number>> = [];
    for (let i = 0; i < total; i++) {
      await new Promise((r) => setTimeout(r, Math.max(0, startedAt + (i * 1000) / rate - Date.now())));
      placed.push(placeOrder(bench.publicUrl, auth, plans.data[0]!.id, `cost-${i}`));
    }
    const accepted = (await Promise.all(placed)).filter((s) => s === 201).length;
    const placedAt = Date.now();
    const receivedAtPlaced = received;
    // A machine shared with other workloads may refuse a few under load; the cost is divided by those accepted.
    if (accepted < total * 0.9) throw new Error(`only ${accepted} of ${total} orders were accepted`);
    // Settled when every accepted order's provision.* webhook arrived (it follows provisioned or failed);
    // counted at the receiver, so the wait adds no query of its own to the counters.
    const deadline = Date.now() + 180_000;
    while (received < accepted) {
      if (Date.now() > deadline) throw new Error(`not settled after 180 s (${received}/${accepted} provision.* webhooks)`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const settleS = (Date.now() - placedAt) / 1000;
    log(`cost: settled ${settleS.toFixed(1)} s after the last 201 (${accepted - receivedAtPlaced} orders still to settle then; ${(accepted / ((Date.now() - startedAt) / 1000)).toFixed(1)} orders/s first order to last webhook)`);
    const db1 = await dbCounters(pool, database);
    const cpu1 = await cpuByProcess(pool, database, bench.pids(), nats, backends);
    await new Promise((r) => setTimeout(r, 5_000));
    log(`cost: the platform at rest for ${idleS}s`);
    const idleCpu0 = await cpuByProcess(pool, database, bench.pids(), nats, backends);
    const idleDb0 = await dbCounters(pool, database);
    await new Promise((r) => setTimeout(r, idleS * 1000));
    const idleDb1 = await dbCounters(pool, database);
    const idleCpu1 = await cpuByProcess(pool, database, bench.pids(), nats, backends);
    const idleCounters = diffCounters(idleDb1, idleDb0);
    const coresByProcess = Object.fromEntries(Object.entries(delta(idleCpu1, idleCpu0)).map(([k, v]) => [k, v / (idleS * 1000)]));

    // The settling window also holds the at-rest cost of its seconds; that is part of what an order costs at this rate.
    const result: CostResult = {
      idle: { seconds: idleS, coresByProcess, xactPerS: idleCounters.xacts / idleS, counters: idleCounters },
      orders: { n: accepted, cpuMsByProcess: Object.fromEntries(Object.entries(delta(cpu1, cpu0)).map(([k, v]) => [k, v / accepted])), counters: diffCounters(db1, db0) },
    };
    const text = formatCost(result);
    process.stdout.write(`\n${text}\n`);
    if (options.report) await writeSection(reportFile, 'cost', `Measured ${new Date().toISOString()}, Node ${process.version}, ${options.mode ?? 'compiled'}, on a machine shared with other workloads.\n\n${text}`);
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

function placeOrder(publicUrl: string, auth: Record<string, string>, planId: string, id: string): Promise<number> {
  return fetch(`${publicUrl}/api/v1/partner/orders`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ clientRequestId: id, planId, email: 'bench@example.com', phoneNumber: '+33612345678' }),
  }).then(async (r) => (await r.arrayBuffer(), r.status));
}

export function formatCost(r: CostResult): string {
  const names = Object.keys(r.orders.cpuMsByProcess).sort((a, b) => r.orders.cpuMsByProcess[b]! - r.orders.cpuMsByProcess[a]!);
  const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);
  const per = (n: number) => (n / r.orders.n).toFixed(1);
  const c = r.orders.counters;
  return [
    `| | ${names.join(' | ')} | all |`,
    `|---|${names.map(() => '---:').join('|')}|---:|`,
    `| CPU per order (ms) | ${names.map((n) => r.orders.cpuMsByProcess[n]!.toFixed(2)).join(' | ')} | ${sum(r.orders.cpuMsByProcess).toFixed(1)} |`,
    `| at rest (cores, ${r.idle.seconds} s) | ${names.map((n) => (r.idle.coresByProcess[n] ?? 0).toFixed(4)).join(' | ')} | ${sum(r.idle.coresByProcess).toFixed(3)} |`,
    '',
    `Per order (${r.orders.n} orders): ${per(c.xacts)} transactions, ${per(c.rowsRead)} rows read (${per(c.seqTupRead)} by sequential scans, ${per(c.seqScans)} seq scans), ${per(c.rowsWritten)} rows written. At rest: ${r.idle.xactPerS.toFixed(1)} transactions/s, ${(r.idle.counters.rowsRead / r.idle.seconds).toFixed(0)} rows read/s.`,
    '',
    `Rows read per order through indexes, by table (top 8): ${
      Object.entries(c.idxByTable)
        .filter(([, v]) => v.rows > 0)
        .sort((a, b) => b[1].rows - a[1].rows)
        .slice(0, 8)
        .map(([t, v]) => `${t} ${per(v.rows)} (${per(v.scans)} index scans)`)
        .join('; ') || 'none'
    }.`,
    '',
    `Sequential scans per order, by table: ${
      Object.entries(c.seqByTable)
        .filter(([, v]) => v.scans > 0)
        .sort((a, b) => b[1].rows - a[1].rows)
        .map(([t, v]) => `${t} ${per(v.scans)} scans / ${per(v.rows)} rows`)
        .join('; ') || 'none'
    }.`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) await costBenchmark({ mode: process.argv.includes('--sources') ? 'sources' : 'compiled', report: !process.argv.includes('--no-report') });
