/**
 * The order benchmark (issue "The money path"): order creation through the
 * gateway at 16 and 50 connections with the supplier answering at once,
 * anchored by pgbench's TPC-B on the same Postgres in the same run (an order
 * is a few transactions in three schemas, so Postgres is the natural
 * ceiling). After the load it waits for every order to settle and checks the
 * ledger invariants; a violation fails the benchmark. Writes its section of
 * docs/benchmarks.md.
 */
import autocannon, { type Result } from 'autocannon';
import { join } from 'node:path';
import pg from 'pg';
import { repoRoot } from '../scripts/launcher/supervisor.js';
import { buildCompiled, log, startBenchPlatform, writeSection } from './support/benchPlatform.js';
import { pgbenchTps } from './support/pgbench.js';

const durationS = Number(process.env.BENCH_DURATION_S ?? 10);
const reportFile = join(repoRoot, 'docs', 'benchmarks.md');

interface Row {
  /** Connections, and partners when more than one. */
  label: string;
  result: Combined;
  pgbenchTps: number;
}

/** What the table reads of one autocannon run, or of several run side by side (one per partner). */
interface Combined {
  requests: { average: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
}

/** Side-by-side runs: rates and counts add up; latency is the worst run's percentile (conservative, not a merged distribution). */
function combined(results: Result[]): Combined {
  return {
    requests: { average: results.reduce((sum, r) => sum + r.requests.average, 0) },
    latency: { p50: Math.max(...results.map((r) => r.latency.p50)), p99: Math.max(...results.map((r) => r.latency.p99)) },
    non2xx: results.reduce((sum, r) => sum + r.non2xx, 0),
    errors: results.reduce((sum, r) => sum + r.errors, 0),
  };
}

/** A partner onboarded through the API with a large balance, and the plan it orders. */
async function fundedPartner(bench: Awaited<ReturnType<typeof startBenchPlatform>>, reference: string): Promise<{ partnerId: string; apiKey: string; planId: string }> {
  const { partnerId, apiKey } = await bench.onboard();
  const topup = await fetch(`${bench.adminUrl}/admin/v1/partners/${partnerId}/wallet/topups`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${bench.adminToken}` },
    body: JSON.stringify({ amount: 100_000_000, reference }),
  });
  if (topup.status !== 201) throw new Error(`top-up answered ${topup.status}: ${await topup.text()}`);
  const plans = (await (await fetch(`${bench.publicUrl}/api/v1/partner/catalog?limit=1`, { headers: { authorization: `Bearer ${apiKey}` } })).json()) as { data: Array<{ id: string }> };
  return { partnerId, apiKey, planId: plans.data[0]!.id };
}

async function settle(pool: pg.Pool, partnerId: string, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM orders.orders WHERE partner_id = $1 AND status IN ('pending', 'processing')",
      [partnerId],
    );
    if (rows[0]!.n === 0) return;
    if (Date.now() > deadline) throw new Error(`${rows[0]!.n} orders still unsettled after ${timeoutMs / 1000}s`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Contract §6 invariants, from the wallet's own tables; any line returned is a violation. */
async function invariantViolations(pool: pg.Pool, partnerId: string): Promise<string[]> {
  const { rows } = await pool.query<{ problem: string }>(
    `WITH entries AS (
       SELECT id, type, order_id, amount, balance_after,
              sum(amount) OVER (ORDER BY created_at, id) AS running
       FROM wallet.ledger_entries WHERE partner_id = $1)
     SELECT 'entry ' || id || ' balanceAfter ' || balance_after || ' ≠ running sum ' || running AS problem FROM entries WHERE balance_after <> running
     UNION ALL SELECT 'negative balance at ' || id FROM entries WHERE balance_after < 0
     UNION ALL SELECT 'order ' || order_id || ' has ' || count(*) || ' ' || type || ' entries' FROM entries
       WHERE type IN ('order_debit', 'refund') GROUP BY order_id, type HAVING count(*) > 1
     UNION ALL SELECT 'wallet balance ≠ ledger sum' FROM wallet.wallets w
       WHERE w.partner_id = $1 AND w.balance <> (SELECT coalesce(sum(amount), 0) FROM wallet.ledger_entries WHERE partner_id = $1)
     UNION ALL SELECT 'order ' || o.id || ' (' || o.status || ') debited ' || coalesce(d.n, 0) || ' times' FROM orders.orders o
       LEFT JOIN (SELECT order_id, count(*) AS n FROM wallet.ledger_entries WHERE type = 'order_debit' GROUP BY order_id) d ON d.order_id = o.id
       WHERE o.partner_id = $1 AND o.status <> 'pending' AND coalesce(d.n, 0) <> 1`,
    [partnerId],
  );
  return rows.map((r) => r.problem);
}

async function provisioningLatency(pool: pg.Pool, partnerId: string) {
  const { rows } = await pool.query<{ n: number; p50: number; p99: number }>(
    `SELECT count(*)::int AS n,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM updated_at - created_at) * 1000) AS p50,
            percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM updated_at - created_at) * 1000) AS p99
     FROM orders.orders WHERE partner_id = $1 AND status = 'provisioned'`,
    [partnerId],
  );
  return rows[0]!;
}

export async function ordersBenchmark(): Promise<void> {
  buildCompiled();
  // The anchor first, while the platform's pools hold no connections (max_connections is 100 here).
  const anchors = new Map<number, number>();
  for (const clients of [16, 50]) {
    log(`pgbench TPC-B at ${clients} clients: ${durationS}s`);
    anchors.set(clients, pgbenchTps(clients, durationS));
  }
  const bench = await startBenchPlatform({ SUPPLIER_LATENCY_MS: '0' });
  const pool = new pg.Pool({ connectionString: bench.databaseUrl, max: 2 });
  let failed = false;
  try {
    const rows: Row[] = [];
    const latencies: Array<{ label: string; n: number; p50: number; p99: number }> = [];
    // One partner at 16 and 50 connections, then four partners sharing 16 (four wallets: the target says no lower than one).
    for (const { connections, partners } of [{ connections: 16, partners: 1 }, { connections: 50, partners: 1 }, { connections: 16, partners: 4 }]) {
      const label = partners === 1 ? String(connections) : `${connections} (${partners} partners)`;
      const onboarded = await Promise.all(Array.from({ length: partners }, (_, i) => fundedPartner(bench, `BENCH-${connections}-${partners}-${i}`)));
      log(`orders at ${label} connections: ${durationS}s`);
      const results = await Promise.all(
        onboarded.map(({ apiKey, planId }) =>
          autocannon({
            url: `${bench.publicUrl}/api/v1/partner/orders`,
            method: 'POST',
            headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
            // [<id>] is replaced by a fresh id per request: every request is a new order.
            body: JSON.stringify({ clientRequestId: `bench-[<id>]`, planId, email: 'bench@example.com', phoneNumber: '+33612345678' }),
            idReplacement: true,
            connections: connections / partners,
            duration: durationS,
            timeout: 10,
          }),
        ),
      );
      rows.push({ label, result: combined(results), pgbenchTps: anchors.get(connections)! });
      const partnerLatencies = [];
      for (const { partnerId } of onboarded) {
        await settle(pool, partnerId);
        const violations = await invariantViolations(pool, partnerId);
        if (violations.length > 0) throw new Error(`ledger invariants violated:\n${violations.join('\n')}`);
        partnerLatencies.push(await provisioningLatency(pool, partnerId));
      }
      // Several partners: the slowest partner's percentiles (a conservative reading, not a merged distribution).
      latencies.push({ label, n: partnerLatencies.reduce((sum, l) => sum + l.n, 0), p50: Math.max(...partnerLatencies.map((l) => l.p50)), p99: Math.max(...partnerLatencies.map((l) => l.p99)) });
    }
    const table = [
      '| connections | orders/s | p50 | p99 | non-2xx | errors | pgbench TPC-B tps | orders/s ÷ tps | 201 → provisioned p50 | p99 |',
      '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...rows.map(({ label, result, pgbenchTps }) => {
        const lat = latencies.find((l) => l.label === label)!;
        return `| ${label} | ${Math.round(result.requests.average)} | ${result.latency.p50} ms | ${result.latency.p99} ms | ${result.non2xx} | ${result.errors} | ${Math.round(pgbenchTps)} | ${Math.round((result.requests.average / pgbenchTps) * 100)} % | ${Math.round(lat.p50)} ms | ${Math.round(lat.p99)} ms |`;
      }),
    ].join('\n');
    process.stdout.write(`\n${table}\n`);
    await writeSection(
      reportFile,
      'orders',
      `Measured ${new Date().toISOString()}, Node ${process.version}, ${durationS} s per run, supplier latency 0, ledger invariants checked after each run (none violated).\n\n${table}`,
    );
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    await pool.end();
    await bench.stop(failed);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await ordersBenchmark();
