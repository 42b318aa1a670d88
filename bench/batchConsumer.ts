/**
 * How fast one saga consumer works off a backlog, one transaction per event
 * against batches (packages/events `batch`): the settle rate after a burst,
 * without the rest of the platform in the way. A backlog of events waits in
 * a stream; a consumer whose handler does what a saga step does (lock the
 * order row, update it, write two outbox rows) drains it. Reported per
 * event: transactions, CPU of this process and of its Postgres backends, and
 * events per second (wall time: compare within one run only).
 *
 *   node --conditions=development --import tsx bench/batchConsumer.ts [events] [batch sizes, comma-separated]
 */
import { jetstream } from '@nats-io/jetstream';
import pg from 'pg';
import { enqueueEvent, ensureStreams, exactlyOnce, exactlyOnceBatch, migrateEventTables, startConsumer, type EventEnvelope } from '@esim/events';
import { newId } from '@esim/ids';
import type { PoolClient } from '@esim/postgres';
import { createLogger } from '@esim/telemetry';
import { createTestInfra } from '@esim/testing';
import { log } from './support/benchPlatform.js';
import { dbCounters, diffCounters } from './support/pgCounters.js';
import { cpuMs } from './support/processStats.js';

const type = 'catalog.plan.changed';
const schema = 'app';
const total = Number(process.argv[2] ?? 2_000);
const sizes = (process.argv[3] ?? '1,64').split(',').map(Number);
const logger = createLogger('bench-batch', 'warn');
/** dbCounters' own statements, each a transaction, seen by the reading after. */
const countersOwnXacts = 3;

const infra = await createTestInfra('benchbatch', { poolSize: 4 });
const database = new URL(infra.databaseUrl).pathname.slice(1);
const counters = new pg.Pool({ connectionString: infra.databaseUrl, max: 1 });
try {
  await migrateEventTables(infra.databaseUrl, schema);
  await infra.pool.query(`CREATE TABLE ${schema}.orders (id text PRIMARY KEY, status text NOT NULL, version int NOT NULL DEFAULT 0)`);
  const nc = await infra.nats();
  await ensureStreams(nc, infra.ns, ['CATALOG']);
  const js = jetstream(nc);
  const ids = Array.from({ length: total }, (_, i) => `ord_${i}`);
  await infra.pool.query(`INSERT INTO ${schema}.orders (id, status) SELECT unnest($1::text[]), 'processing'`, [ids]);
  // One backlog, read by one fresh durable per batch size.
  for (const id of ids) {
    const event: EventEnvelope<typeof type> = { id: newId('evt'), type, occurredAt: new Date().toISOString(), data: { planId: id, active: true } };
    await js.publish(infra.ns.subject(type), JSON.stringify(event), { msgID: event.id });
  }
  const step = async (event: EventEnvelope<typeof type>, db: PoolClient) => {
    await db.query(`SELECT id FROM ${schema}.orders WHERE id = $1 FOR UPDATE`, [event.data.planId]);
    await db.query(`UPDATE ${schema}.orders SET status = 'provisioned', version = version + 1 WHERE id = $1`, [event.data.planId]);
    await enqueueEvent(db, schema, type, { planId: event.data.planId, active: false });
    await enqueueEvent(db, schema, type, { planId: event.data.planId, active: true });
  };
  const rows: string[] = [];
  for (const size of sizes) {
    const durable = `drain_${size}`;
    const backends = async () => (await counters.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [database])).rows.map((r) => r.pid);
    const pgCpu = async () => (await backends()).reduce((sum, pid) => sum + cpuMs(pid), 0);
    await infra.pool.query(`SELECT 1 FROM generate_series(1, 4)`); // the pool's connections open before the counters are read
    const db0 = await dbCounters(counters, database);
    const node0 = process.cpuUsage();
    const pg0 = await pgCpu();
    const startedAt = Date.now();
    const consumer = await startConsumer({
      nc,
      ns: infra.ns,
      logger,
      spec: { durable, type, ackWaitMs: 30_000, maxDeliver: 5, batch: size },
      handle: exactlyOnce(infra.pool, schema, durable, step),
      ...(size > 1 ? { applyBatch: exactlyOnceBatch(infra.pool, schema, durable, step) } : {}),
    });
    // The polls below are transactions of their own: counted, and taken off the consumer's count.
    let polls = 0;
    for (;;) {
      polls += 1;
      const { rows: done } = await counters.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}.processed_events WHERE consumer = $1`, [durable]);
      if (done[0]!.n >= total) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const seconds = (Date.now() - startedAt) / 1000;
    const pg1 = await pgCpu();
    const node = process.cpuUsage(node0);
    await consumer.stop();
    // An idle backend flushes its counters within 10 s (PGSTAT_IDLE_INTERVAL); dbCounters waits only 1.5 s.
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    const db = diffCounters(await dbCounters(counters, database), db0);
    const xacts = db.xacts - polls - countersOwnXacts;
    const nodeMs = (node.user + node.system) / 1000;
    rows.push(
      `| ${size} | ${(total / seconds).toFixed(0)} | ${(xacts / total).toFixed(3)} | ${(nodeMs / total).toFixed(2)} | ${((pg1 - pg0) / total).toFixed(2)} | ${((nodeMs + pg1 - pg0) / total).toFixed(2)} |`,
    );
    log(`batch ${size}: ${total} events in ${seconds.toFixed(1)} s`);
  }
  process.stdout.write(
    [
      `Backlog of ${total} events drained by one consumer (lock, update, two outbox rows per event):`,
      '',
      '| batch | events/s | transactions per event | consumer CPU per event (ms) | Postgres CPU per event (ms) | both (ms) |',
      '|---:|---:|---:|---:|---:|---:|',
      ...rows,
      '',
    ].join('\n'),
  );
} finally {
  await counters.end();
  await infra.cleanup();
}
