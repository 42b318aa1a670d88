import { withTransaction, type Pool, type PoolClient } from '@esim/postgres';
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
      const claimed = await db.query(`INSERT INTO ${schema}.processed_events (consumer, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [
        consumer,
        event.id,
      ]);
      if (claimed.rowCount === 0) return;
      await handle(event, db);
    });
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
