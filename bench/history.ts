/**
 * The history benchmark (issue #29, "flat with history"; contract §11: an
 * order costs the same after a hundred million orders as after the first).
 * One platform, one partner with a webhook receiver on loopback:
 *
 *   1. a burst of `orders` orders at `rate`/s on the empty database, each
 *      settled (its `provision.*` webhook received);
 *   2. history loaded straight into the services' tables with
 *      INSERT … SELECT generate_series (no client round trip per row):
 *      `rows` past orders, ledger entries (with their reservations),
 *      webhook events and deliveries, consumers' processed events in each
 *      schema, and a day of published outbox rows (a tenth of `rows`) in
 *      each outbox; then VACUUM ANALYZE, as autovacuum leaves old rows;
 *   3. the same burst again.
 *
 * The figure per burst is what Postgres itself counts for the platform's
 * database (pg_stat_user_tables, pg_stat_user_indexes), divided by the
 * orders accepted: rows read (sequential scans' rows plus rows fetched
 * through indexes) and index entries read. Flat means the second burst
 * reads what the first did; the issue's bound is 200 a order.
 *
 *   npm run bench -- --only history
 *   BENCH_HISTORY_ROWS=100000 npm run bench -- --only history   (a smaller history, for a quick run)
 *   BENCH_HISTORY_ORDERS, BENCH_HISTORY_RATE: the burst (default 200 orders at 10/s)
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { repoRoot } from '../scripts/launcher/supervisor.js';
import { buildCompiled, log, startBenchPlatform, writeSection } from './support/benchPlatform.js';

const reportFile = join(repoRoot, 'docs', 'benchmarks.md');

export interface HistoryOptions {
  rows?: number;
  orders?: number;
  ratePerSecond?: number;
  mode?: 'compiled' | 'sources';
  report?: boolean;
}

/** What one relation's counters say, rows read and index entries read. */
interface Reads {
  rows: number;
  entries: number;
}

/**
 * Postgres's read counters for every table and index of the database: a
 * table's rows read (sequential scans' rows plus rows fetched through its
 * indexes), and each index's entries read (keyed `schema.table/index`).
 */
async function readCounters(pool: pg.Pool): Promise<Map<string, Reads>> {
  // Backends flush their counters at most once a second, and an idle one within a few: give the last ones time to land.
  await new Promise((r) => setTimeout(r, 3_000));
  await pool.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await pool.query<{ name: string; rows: number; entries: number }>(
    `SELECT schemaname || '.' || relname AS name, (coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0))::float8 AS rows, 0::float8 AS entries
     FROM pg_stat_user_tables
     UNION ALL
     SELECT schemaname || '.' || relname || '/' || indexrelname, 0, idx_tup_read::float8 FROM pg_stat_user_indexes`,
  );
  return new Map(rows.map((row) => [row.name, { rows: row.rows, entries: row.entries }]));
}

function diff(after: Map<string, Reads>, before: Map<string, Reads>): Map<string, Reads> {
  const out = new Map<string, Reads>();
  for (const [name, a] of after) {
    const b = before.get(name) ?? { rows: 0, entries: 0 };
    out.set(name, { rows: a.rows - b.rows, entries: a.entries - b.entries });
  }
  return out;
}

interface Burst {
  label: string;
  orders: number;
  seconds: number;
  byTable: Map<string, Reads>;
}

/**
 * Loads `rows` of history with generate_series, in one transaction per
 * table family, triggers and foreign keys off for the load
 * (session_replication_role = replica: the rows are built consistent, and
 * the ledger's chain triggers would otherwise run once per row). CHECK and
 * unique constraints still hold every row.
 */
export async function loadHistory(pool: pg.Pool, rows: number, partnerId: string): Promise<Record<string, number>> {
  const partners = 10;
  const perPartner = Math.floor(rows / partners);
  const outboxRows = Math.floor(rows / 10);
  const client = await pool.connect();
  const took: Record<string, number> = {};
  const step = async (name: string, sql: string, params: unknown[] = []) => {
    const startedAt = Date.now();
    await client.query('BEGIN');
    await client.query('SET LOCAL session_replication_role = replica');
    await client.query(sql, params);
    await client.query('COMMIT');
    took[name] = (Date.now() - startedAt) / 1000;
    log(`history: ${name} in ${took[name]!.toFixed(1)}s`);
  };
  try {
    const endpoint = await client.query<{ id: string }>('SELECT id FROM webhooks.endpoints WHERE partner_id = $1 AND is_primary', [partnerId]);
    const endpointId = endpoint.rows[0]?.id ?? 'whe_history';
    // History is spread over ten partners, the benchmark's own among them: its lists and per-partner indexes hold a tenth.
    const partnerOf = `CASE WHEN i % ${partners} = 0 THEN $1 ELSE 'ptn_hist_' || (i % ${partners}) END`;
    await step(
      'orders.orders',
      `INSERT INTO orders.orders (id, partner_id, client_request_id, fingerprint, plan_id, plan_name, supplier_sku, price, currency, email, phone_number,
         status, iccid, smdp_address, matching_id, activation_code, qr_code, supplier_reference, created_at, updated_at, provisioned_at, unit_price)
       SELECT 'ord_hist' || lpad(i::text, 18, '0'), ${partnerOf}, 'hist-' || i, md5(i::text) || md5(i::text), 'plan_history', 'History 1 GB', 'SKU-HIST', 500, 'EUR',
              'history@example.com', '+33600000000', 'provisioned', (8900000000000000000 + i)::text, 'smdp.example.com', 'M-' || i, 'LPA:1$smdp.example.com$M-' || i,
              'data:image/png;base64,', 'sup-' || i, at, at, at, 500
       FROM generate_series(1, $2::int) AS i, LATERAL (SELECT now() - interval '365 days' + (i::float8 / $2) * interval '364 days' AS at) t`,
      [partnerId, rows],
    );
    // Ten history wallets, each a chain of perPartner entries: a top-up, then debits, each with its captured reservation.
    await step(
      'wallet.ledger_entries',
      `WITH entries AS (
         SELECT p, k, 'led_' || lpad(p::text, 2, '0') || lpad(k::text, 24, '0') AS id,
                CASE WHEN k > 1 THEN 'led_' || lpad(p::text, 2, '0') || lpad((k - 1)::text, 24, '0') END AS prev,
                now() - interval '365 days' + (k::float8 / $1) * interval '364 days' AS at
         FROM generate_series(0, 9) AS p, generate_series(1, $1::int) AS k),
       wallets AS (
         INSERT INTO wallet.wallets (partner_id, balance, last_entry_id)
         SELECT 'ptn_hist_w' || p, 1000000000000 - 100 * ($1::bigint - 1), 'led_' || lpad(p::text, 2, '0') || lpad($1::text, 24, '0') FROM generate_series(0, 9) AS p),
       ledger AS (
         INSERT INTO wallet.ledger_entries (id, partner_id, seq, prev_entry_id, type, amount, balance_before, balance_after, order_id, reference, created_at)
         SELECT id, 'ptn_hist_w' || p, k, prev, CASE WHEN k = 1 THEN 'topup' ELSE 'order_debit' END, CASE WHEN k = 1 THEN 1000000000000 ELSE -100 END,
                CASE WHEN k = 1 THEN 0 ELSE 1000000000000 - 100 * (k - 2) END, 1000000000000 - 100 * (k - 1),
                CASE WHEN k > 1 THEN 'ord_hist_w' || p || '_' || k END, CASE WHEN k = 1 THEN 'hist-topup-' || p END, at
         FROM entries)
       INSERT INTO wallet.reservations (order_id, partner_id, amount, state, debit_entry_id, created_at, updated_at)
       SELECT 'ord_hist_w' || p || '_' || k, 'ptn_hist_w' || p, 100, 'captured', id, at, at FROM entries WHERE k > 1`,
      [perPartner],
    );
    // Webhook events and their deliveries, all delivered, within the 30 days they are kept.
    await step(
      'webhooks.events + deliveries',
      `WITH events AS (
         INSERT INTO webhooks.events (id, partner_id, type, order_id, payload, created_at, received_at)
         SELECT 'evt_hist' || lpad(i::text, 18, '0'), ${partnerOf}, 'provision.provisioned', 'ord_hist' || lpad(i::text, 18, '0'), '{}', at, at
         FROM generate_series(1, $2::int) AS i, LATERAL (SELECT now() - interval '29 days' + (i::float8 / $2) * interval '28 days' AS at) t
         RETURNING id, partner_id, order_id, created_at, seq)
       INSERT INTO webhooks.deliveries (id, event_id, partner_id, endpoint_id, status, attempts, last_status_code, created_at, updated_at, delivered_at,
         order_id, event_created_at, event_seq)
       SELECT 'dlv' || substr(id, 4), id, partner_id, CASE WHEN partner_id = $1 THEN $3 ELSE 'whe_history' END, 'succeeded', 1, 204, created_at, created_at, created_at,
              order_id, created_at, seq
       FROM events`,
      [partnerId, rows, endpointId],
    );
    // Every consumer's record of what it processed (35 days of it), and a day of published outbox rows.
    for (const schema of ['orders', 'wallet', 'provisioning', 'webhooks']) {
      await step(
        `${schema}.processed_events + outbox`,
        `WITH consumers AS (SELECT array_agg(DISTINCT consumer) AS names FROM ${schema}.processed_events),
         processed AS (
           INSERT INTO ${schema}.processed_events (consumer, event_id, processed_at)
           SELECT coalesce(names[1 + i % cardinality(names)], 'history'), 'evt_hist' || lpad(i::text, 18, '0'),
                  now() - interval '34 days' + (i::float8 / $1) * interval '33 days'
           FROM consumers, generate_series(1, $1::int) AS i)
         INSERT INTO ${schema}.outbox (id, subject, payload, created_at, published_at)
         SELECT 'evt_histo' || lpad(i::text, 17, '0'), 'history.published', '{}', at, at
         FROM generate_series(1, $2::int) AS i, LATERAL (SELECT now() - interval '23 hours' + (i::float8 / $2) * interval '22 hours' AS at) t`,
        [rows, outboxRows],
      );
    }
    const startedAt = Date.now();
    for (const table of ['orders.orders', 'wallet.ledger_entries', 'wallet.reservations', 'wallet.wallets', 'webhooks.events', 'webhooks.deliveries',
      'orders.processed_events', 'wallet.processed_events', 'provisioning.processed_events', 'webhooks.processed_events',
      'orders.outbox', 'wallet.outbox', 'provisioning.outbox', 'webhooks.outbox']) {
      await client.query(`VACUUM ANALYZE ${table}`);
    }
    took.vacuum = (Date.now() - startedAt) / 1000;
    log(`history: VACUUM ANALYZE in ${took.vacuum.toFixed(1)}s`);
    return took;
  } finally {
    client.release();
  }
}

export async function historyBenchmark(options: HistoryOptions = {}): Promise<void> {
  const rows = options.rows ?? Number(process.env.BENCH_HISTORY_ROWS ?? 1_000_000);
  const total = options.orders ?? Number(process.env.BENCH_HISTORY_ORDERS ?? 200);
  const rate = options.ratePerSecond ?? Number(process.env.BENCH_HISTORY_RATE ?? 10);
  const mode = options.mode ?? 'compiled';
  if (mode === 'compiled' && !process.env.BENCH_NO_BUILD) buildCompiled();
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

  // NODE_ENV=development: production's provisioning refuses the simulator as its upstream (and asks for ES2+ mutual TLS),
  // and this benchmark counts database reads, which the mode does not change.
  const bench = await startBenchPlatform({ NODE_ENV: 'development', SUPPLIER_LATENCY_MS: '0', WEBHOOK_ALLOW_INSECURE_URLS: 'true' }, { mode });
  const pool = new pg.Pool({ connectionString: bench.databaseUrl, max: 2 });
  let failed = false;
  try {
    const { partnerId, apiKey } = await bench.onboard();
    const asAdmin = { 'content-type': 'application/json', authorization: `Bearer ${bench.adminToken}` };
    const patched = await fetch(`${bench.adminUrl}/admin/v1/partners/${partnerId}`, { method: 'PATCH', headers: asAdmin, body: JSON.stringify({ webhookUrl: receiverUrl }) });
    if (patched.status !== 200) throw new Error(`webhook URL answered ${patched.status}: ${await patched.text()}`);
    const topup = await fetch(`${bench.adminUrl}/admin/v1/partners/${partnerId}/wallet/topups`, { method: 'POST', headers: asAdmin, body: JSON.stringify({ amount: 100_000_000, reference: 'BENCH-HISTORY' }) });
    if (topup.status !== 201) throw new Error(`top-up answered ${topup.status}: ${await topup.text()}`);
    const auth = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
    const plans = (await (await fetch(`${bench.publicUrl}/api/v1/partner/catalog?limit=1`, { headers: auth })).json()) as { data: Array<{ id: string }> };
    const planId = plans.data[0]!.id;

    const burst = async (label: string, prefix: string): Promise<Burst> => {
      received = 0;
      const before = await readCounters(pool);
      log(`history: ${total} orders at ${rate}/s (${label}), then settling`);
      const startedAt = Date.now();
      const placed: Array<Promise<number>> = [];
      for (let i = 0; i < total; i++) {
        await new Promise((r) => setTimeout(r, Math.max(0, startedAt + (i * 1000) / rate - Date.now())));
        placed.push(placeOrder(bench.publicUrl, auth, planId, `${prefix}-${i}`));
      }
      const accepted = (await Promise.all(placed)).filter((s) => s === 201).length;
      if (accepted < total * 0.9) throw new Error(`only ${accepted} of ${total} orders were accepted`);
      const deadline = Date.now() + 300_000;
      while (received < accepted) {
        if (Date.now() > deadline) throw new Error(`not settled after 300 s (${received}/${accepted} provision.* webhooks)`);
        await new Promise((r) => setTimeout(r, 250));
      }
      const seconds = (Date.now() - startedAt) / 1000;
      return { label, orders: accepted, seconds, byTable: diff(await readCounters(pool), before) };
    };

    // Warm-up: pools, JIT and every consumer past its first message (their names seed the history's processed events).
    for (let i = 0; i < 5; i++) await placeOrder(bench.publicUrl, auth, planId, `warm-${i}`);
    // The daily reconciliation's first run (a minute after start) reads whole tables once a day: it is measured
    // apart (docs/retention.md), so both bursts start after it.
    const deadline = Date.now() + 180_000;
    while ((await pool.query(`SELECT 1 FROM orders.reconciliation_runs WHERE trigger = 'daily' AND finished_at IS NOT NULL`)).rowCount === 0) {
      if (Date.now() > deadline) throw new Error('no daily reconciliation run finished within 180 s of start');
      await new Promise((r) => setTimeout(r, 1_000));
    }
    const empty = await burst('empty database', 'empty');
    log(`history: loading ${rows.toLocaleString('en')} rows per table`);
    const took = await loadHistory(pool, rows, partnerId);
    const full = await burst(`${rows.toLocaleString('en')} rows of history`, 'full');

    const text = formatHistory([empty, full], rows, took);
    process.stdout.write(`\n${text}\n`);
    if (options.report ?? true) {
      await writeSection(reportFile, 'history', `Measured ${new Date().toISOString()}, Node ${process.version}, ${mode}, ${total} orders at ${rate}/s per burst, on a machine shared with other workloads.\n\n${text}`);
    }
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

export function formatHistory(bursts: Burst[], rows: number, took: Record<string, number>): string {
  const sum = (b: Burst, key: keyof Reads) => [...b.byTable.values()].reduce((a, t) => a + t[key], 0) / b.orders;
  // Rows and entries per order, by table (an index's entries counted under its table).
  const byTable = (b: Burst) => {
    const out = new Map<string, number>();
    for (const [name, t] of b.byTable) {
      const table = name.split('/')[0]!;
      out.set(table, (out.get(table) ?? 0) + (t.rows + t.entries) / b.orders);
    }
    return out;
  };
  const top = (entries: Iterable<readonly [string, number]>, n: number) =>
    [...entries]
      .filter(([, v]) => v >= 0.5)
      .sort((x, y) => y[1] - x[1])
      .slice(0, n)
      .map(([name, v]) => `${name} ${v.toFixed(1)}`)
      .join(', ');
  const byIndex = (b: Burst) => top([...b.byTable.entries()].filter(([name]) => name.includes('/')).map(([name, t]) => [name, t.entries / b.orders] as const), 8);
  return [
    '| database | orders | burst + settling | rows read per order | index entries read per order | sum | heaviest tables (rows + entries per order) |',
    '|---|---:|---:|---:|---:|---:|---|',
    ...bursts.map((b) => `| ${b.label} | ${b.orders} | ${b.seconds.toFixed(0)} s | ${sum(b, 'rows').toFixed(1)} | ${sum(b, 'entries').toFixed(1)} | **${(sum(b, 'rows') + sum(b, 'entries')).toFixed(1)}** | ${top(byTable(b), 6)} |`),
    ...bursts.flatMap((b) => ['', `Index entries per order, ${b.label}: ${byIndex(b) || 'none'}.`]),
    '',
    `History: ${rows.toLocaleString('en')} orders, ledger entries (10 wallets, with reservations), webhook events and deliveries, and processed events in each of orders, wallet, provisioning and webhooks, plus ${Math.floor(rows / 10).toLocaleString('en')} published rows in each of their outboxes; loaded in ${Object.values(took).reduce((a, b) => a + b, 0).toFixed(0)} s (VACUUM ANALYZE included).`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) await historyBenchmark({ mode: process.argv.includes('--sources') ? 'sources' : 'compiled', report: !process.argv.includes('--no-report') });
