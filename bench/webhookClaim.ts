/**
 * The delivery worker's claim, measured where it hurts (issue #28): how many
 * index entries of `webhooks.deliveries` (and `webhooks.events`) one claimed
 * delivery costs, against a history of finished deliveries. A burst leaves
 * the history as a worker does (each delivery inserted pending, then marked
 * succeeded, autovacuum and autoanalyze off as they lag behind a burst:
 * statistics of the empty tables), then 100 new
 * events fan out to 3 endpoints and the worker's own claim
 * (`claimDueAttempts`) drains them with a 32-slot batch, recording each
 * attempt as the worker does. idx_tup_read of pg_stat_user_indexes, before
 * and after the drain, divided by the deliveries claimed, is the figure.
 *
 *   node --conditions=development --import tsx bench/webhookClaim.ts [history ...]
 *
 * Runs on its own throwaway database (never a platform's); prints a
 * markdown table.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { migrate } from '@esim/postgres';
import { postgresUrl } from '@esim/testing';
import { claimDueAttempts, recordAttemptResult } from '../services/webhooks/src/store/attemptStore.js';

const histories = process.argv.slice(2).map(Number).filter((n) => n > 0);
const endpoints = 3;
const freshEvents = 100;
const migrations = fileURLToPath(new URL('../services/webhooks/migrations', import.meta.url));

interface Row {
  history: number;
  vacuumed: boolean;
  /** deliveries index entries the first (empty) poll after the history read. */
  firstPoll: number;
  claimed: number;
  claims: number;
  deliveriesRead: number;
  eventsRead: number;
  byIndex: Record<string, number>;
}

async function indexReads(admin: pg.Client): Promise<Map<string, number>> {
  await admin.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await admin.query<{ name: string; reads: string }>(
    `SELECT relname || '.' || indexrelname AS name, idx_tup_read AS reads FROM pg_stat_user_indexes WHERE schemaname = 'webhooks'`,
  );
  return new Map(rows.map((row) => [row.name, Number(row.reads)]));
}

async function measure(databaseUrl: string, history: number, vacuumed: boolean): Promise<Row> {
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  try {
    await admin.query(`ALTER TABLE webhooks.deliveries SET (autovacuum_enabled = false)`);
    await admin.query(`ALTER TABLE webhooks.events SET (autovacuum_enabled = false)`);
    await admin.query(`TRUNCATE webhooks.deliveries, webhooks.events`);
    // Statistics as a burst leaves them: taken while the tables were small (autoanalyze lags behind a burst).
    await admin.query(`ANALYZE webhooks.deliveries, webhooks.events`);
    // The history: `history` order events (two per order), each delivered to every endpoint, as a worker leaves them.
    await admin.query(
      `INSERT INTO webhooks.events (id, partner_id, type, order_id, payload, created_at)
       SELECT 'evt_h' || g, 'ptn_bench', CASE WHEN g % 2 = 0 THEN 'payment.paid' ELSE 'provision.provisioned' END, 'ord_h' || (g / 2), '{}', now() - interval '1 hour' + g * interval '1 millisecond'
       FROM generate_series(1, $1) g`,
      [history],
    );
    await admin.query(
      `INSERT INTO webhooks.deliveries (id, event_id, partner_id, endpoint_id, status, next_attempt_at, created_at)
       SELECT 'dlv_h' || g || '_' || e, 'evt_h' || g, 'ptn_bench', 'whe_' || e, 'pending', now() - interval '1 hour', now() - interval '1 hour' + g * interval '1 millisecond'
       FROM generate_series(1, $1) g, generate_series(1, $2) e`,
      [history, endpoints],
    );
    await admin.query(`UPDATE webhooks.deliveries SET status = 'succeeded', attempts = 1, next_attempt_at = NULL, delivered_at = now()`);
    if (vacuumed) await admin.query(`VACUUM ANALYZE webhooks.deliveries, webhooks.events`);
    // The worker polls while idle: its first claim after the history visits the dead index entries the burst left and marks them dead
    // (kill_prior_tuple), as its polls during a real burst would have done as they went. That one-off is reported apart.
    const warmBefore = await indexReads(admin);
    await claimDueAttempts(pool, { limit: 32, perPartner: 32, leaseMs: 60_000 });
    await pool.query('SELECT pg_stat_force_next_flush()');
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const warmAfter = await indexReads(admin);
    let firstPoll = 0;
    for (const [name, reads] of warmAfter) if (name.startsWith('deliveries.')) firstPoll += reads - (warmBefore.get(name) ?? 0);
    // The fresh burst: 100 events (50 orders) fanned out to 3 endpoints, due now.
    await admin.query(
      `INSERT INTO webhooks.events (id, partner_id, type, order_id, payload, created_at)
       SELECT 'evt_f' || g, 'ptn_bench', CASE WHEN g % 2 = 0 THEN 'provision.provisioned' ELSE 'payment.paid' END, 'ord_f' || ((g + 1) / 2), '{}', now() + g * interval '1 millisecond'
       FROM generate_series(1, $1) g`,
      [freshEvents],
    );
    await admin.query(
      `INSERT INTO webhooks.deliveries (id, event_id, partner_id, endpoint_id, status, next_attempt_at)
       SELECT 'dlv_f' || g || '_' || e, 'evt_f' || g, 'ptn_bench', 'whe_' || e, 'pending', now() - interval '1 second' FROM generate_series(1, $1) g, generate_series(1, $2) e`,
      [freshEvents, endpoints],
    );
    // Since the claim index (#28) a delivery carries its event's order and time, as the service writes them.
    const carriesOrder = await admin.query(`SELECT 1 FROM information_schema.columns WHERE table_schema = 'webhooks' AND table_name = 'deliveries' AND column_name = 'order_id'`);
    if (carriesOrder.rowCount) {
      await admin.query(`UPDATE webhooks.deliveries d SET order_id = e.order_id, event_created_at = e.created_at FROM webhooks.events e WHERE e.id = d.event_id`);
    }
    // And, since #23 meets #28, its event's database sequence (the ordering key).
    const carriesSeq = await admin.query(`SELECT 1 FROM information_schema.columns WHERE table_schema = 'webhooks' AND table_name = 'deliveries' AND column_name = 'event_seq'`);
    if (carriesSeq.rowCount) {
      await admin.query(`UPDATE webhooks.deliveries d SET event_seq = e.seq FROM webhooks.events e WHERE e.id = d.event_id`);
    }
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const before = await indexReads(admin);
    let claimed = 0;
    let claims = 0;
    for (let round = 0; round < 10_000 && claimed < freshEvents * endpoints; round += 1) {
      const batch = await claimDueAttempts(pool, { limit: 32, perPartner: 32, leaseMs: 60_000 });
      claims += 1;
      claimed += batch.length;
      for (const attempt of batch) await recordAttemptResult(pool, attempt, { status: 'succeeded', attempts: attempt.attempt, statusCode: 204 });
    }
    await pool.query('SELECT pg_stat_force_next_flush()');
    await pool.query('SELECT 1');
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const after = await indexReads(admin);
    const byIndex: Record<string, number> = {};
    for (const [name, reads] of after) {
      const perDelivery = (reads - (before.get(name) ?? 0)) / Math.max(claimed, 1);
      if (perDelivery > 0) byIndex[name] = perDelivery;
    }
    const sum = (prefix: string) => Object.entries(byIndex).filter(([name]) => name.startsWith(prefix)).reduce((total, [, value]) => total + value, 0);
    return { history, vacuumed, firstPoll, claimed, claims, deliveriesRead: sum('deliveries.'), eventsRead: sum('events.'), byIndex };
  } finally {
    await pool.end();
    await admin.end();
  }
}

const database = `bench_claim_${randomUUID().slice(0, 8)}`;
const databaseUrl = `${postgresUrl}/${database}`;
await migrate({ connectionString: databaseUrl, schema: 'webhooks', dir: migrations });
const rows: Row[] = [];
try {
  for (const history of histories.length ? histories : [2_000, 20_000, 100_000]) {
    for (const vacuumed of [false, true]) rows.push(await measure(databaseUrl, history, vacuumed));
  }
} finally {
  const admin = new pg.Client({ connectionString: `${postgresUrl}/postgres` });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await admin.end();
}
console.log('| finished deliveries (events × 3 endpoints) | vacuumed | first idle poll: deliveries entries read | deliveries claimed | claims | deliveries index entries read per claimed delivery | events index entries per delivery | by index (per delivery) |');
console.log('|---:|---|---:|---:|---:|---:|---:|---|');
for (const row of rows) {
  const detail = Object.entries(row.byIndex).map(([name, value]) => `${name} ${value.toFixed(1)}`).join(', ');
  console.log(`| ${(row.history * endpoints).toLocaleString('en')} | ${row.vacuumed ? 'yes' : 'no'} | ${row.firstPoll.toLocaleString('en')} | ${row.claimed} | ${row.claims} | ${row.deliveriesRead.toFixed(1)} | ${row.eventsRead.toFixed(1)} | ${detail} |`);
}
