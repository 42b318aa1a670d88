import { withClient, withTransaction, type Pool, type PoolClient } from '@esim/postgres';
import type { EventEnvelope, EventType } from './contracts.js';

/**
 * Wraps a handler so it runs inside a Postgres transaction that also records
 * the event id in `<schema>.processed_events`. The effect and the record
 * commit together and the ack follows the commit, so a redelivered event
 * (crash before ack, ack lost) is skipped, never applied twice.
 */
export function exactlyOnce<T extends EventType>(
  pool: Pool,
  schema: string,
  consumer: string,
  handle: (event: EventEnvelope<T>, db: PoolClient) => Promise<void>,
): (event: EventEnvelope<T>) => Promise<void> {
  return (event) =>
    withTransaction(pool, async (db) => {
      if (await recordEvent(db, schema, consumer, event.id)) await handle(event, db);
    });
}

/** Records `eventId` as processed by `consumer` in the caller's transaction; false when it already was (skip the effect). */
async function recordEvent(db: PoolClient, schema: string, consumer: string, eventId: string): Promise<boolean> {
  const claimed = await db.query(`INSERT INTO ${schema}.processed_events (consumer, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [consumer, eventId]);
  return claimed.rowCount === 1;
}

/** Another delivery of the same event is being handled (an ack wait expired meanwhile): this one is retried later. */
export class EventInProgressError extends Error {
  override name = 'EventInProgressError';
}

/**
 * `exactlyOnce` for a handler whose work is a call to another system (a
 * supplier over the network). `call` runs outside any transaction; `record`
 * then writes its effect in a short transaction that also records the event
 * id, and the ack follows that commit. No transaction stays open while the
 * network answers: an open transaction holds back the horizon below which
 * Postgres may forget dead rows, so every outbox and claim scan in the
 * database re-reads the entries that died meanwhile (docs/benchmarks.md,
 * "Flat with history").
 * The guarantee: the effect commits at most once per event id (a second
 * `record` finds the id taken and writes nothing), and an event already
 * recorded is skipped before calling. One delivery of an event calls at a
 * time: a session advisory lock on the event id (held on an idle
 * connection, not in a transaction) turns a second delivery arriving
 * meanwhile into a retry. `call` may still run again after a crash between
 * it and the commit, so it must be idempotent where it lands, as a supplier
 * call keyed by the order id is.
 */
export function exactlyOnceAroundCall<T extends EventType, R>(
  pool: Pool,
  schema: string,
  consumer: string,
  steps: { call: (event: EventEnvelope<T>) => Promise<R>; record: (event: EventEnvelope<T>, result: R, db: PoolClient) => Promise<void> },
): (event: EventEnvelope<T>) => Promise<void> {
  return async (event) => {
    const lockKey = `${schema}.processed_events:${consumer}:${event.id}`;
    await withClient(pool, async (client, broken) => {
      const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok', [lockKey]);
      if (rows[0]?.ok !== true) throw new EventInProgressError(`event ${event.id} is being handled by another delivery`);
      try {
        const seen = await client.query(`SELECT 1 FROM ${schema}.processed_events WHERE consumer = $1 AND event_id = $2`, [consumer, event.id]);
        if ((seen.rowCount ?? 0) > 0) return;
        const result = await steps.call(event);
        await withTransaction(pool, async (db) => {
          if (await recordEvent(db, schema, consumer, event.id)) await steps.record(event, result, db);
        });
      } finally {
        // The lock goes with the session: a connection that cannot say unlock is not handed to anyone else.
        await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [lockKey]).catch(broken);
      }
    });
  };
}

/**
 * Applies several events in one transaction, in the order given, or none of
 * them (it throws, having rolled back). `within(index, work)` runs the
 * index-th event's work, so the consumer can put that event's span around
 * its own statements (the outbox rows it writes carry that trace).
 */
export type BatchApplier<T extends EventType> = (
  batch: readonly EventEnvelope<T>[],
  within: (index: number, work: () => Promise<void>) => Promise<void>,
) => Promise<void>;

/**
 * `exactlyOnce` for a batch: one transaction claims every event id in one
 * statement and runs the handler for each newly claimed event, in order.
 * Each event still gets its processed_events row, committed with its effect,
 * so a redelivery after the commit (a crash before the acks) is skipped; an
 * id twice in one batch (a redelivery beside its original) is applied once.
 */
export function exactlyOnceBatch<T extends EventType>(
  pool: Pool,
  schema: string,
  consumer: string,
  handle: (event: EventEnvelope<T>, db: PoolClient) => Promise<void>,
): BatchApplier<T> {
  return (batch, within) =>
    withTransaction(pool, async (db) => {
      const claimed = await db.query<{ event_id: string }>(
        `INSERT INTO ${schema}.processed_events (consumer, event_id) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING RETURNING event_id`,
        [consumer, batch.map((event) => event.id)],
      );
      const toApply = new Set(claimed.rows.map((row) => row.event_id));
      for (const [index, event] of batch.entries()) {
        if (!toApply.delete(event.id)) continue;
        await within(index, () => handle(event, db));
      }
    });
}
