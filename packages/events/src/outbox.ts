import { context, metrics, propagation } from '@opentelemetry/api';
import { headers as natsHeaders, type NatsConnection } from '@nats-io/nats-core';
import { jetstream } from '@nats-io/jetstream';
import { newId } from '@esim/ids';
import { listenFor, type Pool, type Queryable } from '@esim/postgres';
import type { Logger } from '@esim/telemetry';
import { events, type EventData, type EventEnvelope, type EventType } from './contracts.js';
import type { Namespace } from './namespace.js';

/**
 * The transactional outbox. `enqueueEvent` writes the event in the caller's
 * transaction, beside the state change it announces; the relay publishes
 * committed rows to JetStream with `Nats-Msg-Id` = event id, so a row
 * published twice (crash after publish, before marking) is dropped by the
 * stream's duplicate window.
 *
 * Each service's migrations create `<schema>.outbox` with this shape:
 *   seq bigserial primary key, id text unique, subject text, payload jsonb,
 *   headers jsonb, created_at timestamptz, published_at timestamptz
 */
export async function enqueueEvent<T extends EventType>(db: Queryable, schema: string, type: T, data: EventData<T>): Promise<string> {
  const envelope: EventEnvelope<T> = {
    id: newId('evt'),
    type,
    occurredAt: new Date().toISOString(),
    data: events[type].data.parse(data) as EventData<T>,
  };
  // The request's trace context travels with the event, so the work it causes joins the same trace.
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  // NOTIFY is transactional: the relay hears it when (and only if) the caller's transaction commits.
  await db.query(
    `WITH inserted AS (INSERT INTO ${schema}.outbox (id, subject, payload, headers) VALUES ($1, $2, $3, $4) RETURNING 1)
     SELECT pg_notify($5, '') FROM inserted`,
    [envelope.id, type, JSON.stringify(envelope), JSON.stringify(carrier), outboxChannel(schema)],
  );
  return envelope.id;
}

/**
 * Publishes an event straight to JetStream, for a service with no database
 * and so no outbox (the gateway's own operator actions). There is no state
 * change to commit it with: the caller publishes after its effect, and
 * `Nats-Msg-Id` = event id makes a retried publish land once.
 */
export async function publishEvent<T extends EventType>(nc: NatsConnection, ns: Namespace, type: T, data: EventData<T>): Promise<string> {
  const envelope: EventEnvelope<T> = { id: newId('evt'), type, occurredAt: new Date().toISOString(), data: events[type].data.parse(data) as EventData<T> };
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  const h = natsHeaders();
  for (const [key, value] of Object.entries(carrier)) h.set(key, value);
  await jetstream(nc).publish(ns.subject(type), JSON.stringify(envelope), { msgID: envelope.id, headers: h, timeout: 5_000 });
  return envelope.id;
}

/** The LISTEN/NOTIFY channel that wakes a schema's relay as soon as an event commits. */
const outboxChannel = (schema: string) => `${schema}_outbox`;

export interface OutboxRelay {
  stop(): Promise<void>;
}

const meter = metrics.getMeter('@esim/events');
const published = meter.createCounter('outbox_events_published_total', { description: 'Events the outbox relay published' });

/** Running relays, so one gauge reports every schema's backlog and a stopped relay stops being scraped. */
const runningRelays = new Set<{ pool: Pool; schema: string }>();
const backlog = meter.createObservableGauge('outbox_backlog', { description: 'Outbox events not yet published' });
// A stuck relay shows as age long before the backlog looks large: 0 when nothing waits.
const oldestAge = meter.createObservableGauge('outbox_oldest_unpublished_age_seconds', { description: 'Age of the oldest outbox event not yet published' });
meter.addBatchObservableCallback(
  async (result) => {
    for (const { pool, schema } of runningRelays) {
      const { rows } = await pool.query<{ n: number; age: number }>(
        `SELECT count(*)::int AS n, COALESCE(EXTRACT(EPOCH FROM now() - min(created_at)), 0)::float8 AS age FROM ${schema}.outbox WHERE published_at IS NULL`,
      );
      result.observe(backlog, rows[0]?.n ?? 0, { schema });
      result.observe(oldestAge, Math.max(0, rows[0]?.age ?? 0), { schema });
    }
  },
  [backlog, oldestAge],
);

/**
 * Publishes committed outbox rows in order. One relay per schema holds a
 * transaction-scoped advisory lock at a time, so replicas fail over without
 * reordering events. It wakes on the NOTIFY each committed event sends (a
 * few milliseconds from commit to JetStream). The poll is only the safety
 * net: every `idlePollMs` while a connection listens (a notification lost
 * with its connection, a relay replica that lost the lock race), every
 * `pollMs` while none does. At rest a relay costs one indexed read per
 * `idlePollMs` (the locked transaction only when that read finds a row),
 * not ten transactions a second.
 */
export function startOutboxRelay(options: {
  pool: Pool;
  schema: string;
  nc: NatsConnection;
  ns: Namespace;
  logger: Logger;
  /** Poll interval while no connection listens for commits. */
  pollMs?: number;
  /** Poll interval while one does (the safety net). */
  idlePollMs?: number;
  batchSize?: number;
}): OutboxRelay {
  const { pool, schema, nc, ns, logger } = options;
  const pollMs = options.pollMs ?? 100;
  const idlePollMs = options.idlePollMs ?? 5_000;
  const batchSize = options.batchSize ?? 100;
  const js = jetstream(nc);
  let stopped = false;
  // Published rows are kept a day (for operators), pruned every ten minutes.
  const pruneEveryMs = 600_000;
  let prunedAt = Date.now();

  const registration = { pool, schema };
  runningRelays.add(registration);

  async function tick(): Promise<number> {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const lock = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock(hashtext($1)) AS ok', [`${schema}.outbox`]);
      if (!lock.rows[0]?.ok) {
        await client.query('ROLLBACK');
        return 0;
      }
      const { rows } = await client.query<{ id: string; subject: string; payload: unknown; headers: Record<string, string> }>(
        `SELECT id, subject, payload, headers FROM ${schema}.outbox WHERE published_at IS NULL ORDER BY seq LIMIT $1`,
        [batchSize],
      );
      // Pipelined: every publish is sent before the first ack is awaited. One
      // connection delivers them to the server in this order, so the stream
      // keeps commit order; a batch costs one round trip, not one per event.
      // Only the prefix acknowledged without a gap is marked: after a failed
      // publish, the rows behind it are published again on the next tick
      // (the duplicate window drops the copies that did land).
      const acks = await Promise.allSettled(
        rows.map((row) => {
          const h = natsHeaders();
          for (const [key, value] of Object.entries(row.headers ?? {})) h.set(key, value);
          return js.publish(ns.subject(row.subject), JSON.stringify(row.payload), { msgID: row.id, headers: h, timeout: 5_000 });
        }),
      );
      const failedAt = acks.findIndex((ack) => ack.status === 'rejected');
      const done = (failedAt === -1 ? rows : rows.slice(0, failedAt)).map((row) => row.id);
      for (const row of rows.slice(0, done.length)) published.add(1, { subject: row.subject });
      if (done.length > 0) await client.query(`UPDATE ${schema}.outbox SET published_at = now() WHERE id = ANY($1)`, [done]);
      await client.query('COMMIT');
      if (failedAt !== -1) throw (acks[failedAt] as PromiseRejectedResult).reason;
      return rows.length;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  // The safety-net poll at rest almost always finds nothing: one indexed read (outbox_unpublished) says so
  // in one statement, where the locked tick costs four and a transaction.
  const anyUnpublished = async () =>
    (await pool.query<{ any: boolean }>(`SELECT EXISTS (SELECT 1 FROM ${schema}.outbox WHERE published_at IS NULL) AS any`)).rows[0]?.any === true;

  async function pruneIfDue(): Promise<void> {
    if (Date.now() - prunedAt <= pruneEveryMs) return;
    prunedAt = Date.now();
    await pool.query(`DELETE FROM ${schema}.outbox WHERE published_at < now() - interval '1 day'`);
  }

  // A notification during a tick is remembered, so the event it announces never waits for the next poll.
  let notified = false;
  let wake: (() => void) | undefined;
  const onNotification = () => {
    notified = true;
    wake?.();
  };
  const idle = () =>
    new Promise<void>((resolve) => {
      if (notified || stopped) return resolve();
      const timer = setTimeout(() => (wake = undefined, resolve()), listener.listening() ? idlePollMs : pollMs);
      wake = () => (clearTimeout(timer), (wake = undefined), resolve());
    });

  const listener = listenFor(pool, outboxChannel(schema), onNotification, (error) =>
    logger.warn({ err: error, schema }, 'outbox relay cannot listen for commits; polling only'),
  );

  const loop = (async () => {
    // At start, after a notification and after a full batch there is work to expect: tick at once.
    let expectWork = true;
    while (!stopped) {
      await listener.ensure();
      expectWork ||= notified;
      notified = false;
      let count = 0;
      try {
        if (expectWork || (await anyUnpublished())) count = await tick();
        await pruneIfDue();
      } catch (error) {
        logger.warn({ err: error, schema }, 'outbox relay tick failed; retrying');
      }
      expectWork = count >= batchSize;
      if (!expectWork && !stopped) await idle();
    }
  })();

  return {
    async stop() {
      stopped = true;
      wake?.();
      runningRelays.delete(registration);
      await loop;
      await listener.stop();
    },
  };
}
