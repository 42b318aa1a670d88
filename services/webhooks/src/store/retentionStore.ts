import type { Queryable } from '@esim/postgres';

/**
 * Deletes up to `batch` of the oldest events older than `retentionMs`, with
 * their deliveries, in one statement; an event with a delivery still
 * pending (an operator's late retry) is kept until it ends. Answers how many
 * events went.
 */
export async function deleteExpiredEvents(db: Queryable, retentionMs: number, batch: number): Promise<number> {
  const { rowCount } = await db.query(
    `WITH old AS (
       SELECT e.id FROM webhooks.events e
       WHERE e.created_at < now() - $1 * interval '1 millisecond'
         AND NOT EXISTS (SELECT 1 FROM webhooks.deliveries d WHERE d.event_id = e.id AND d.status = 'pending')
       ORDER BY e.created_at
       LIMIT $2
     ),
     deliveries AS (DELETE FROM webhooks.deliveries d USING old WHERE d.event_id = old.id RETURNING 1)
     DELETE FROM webhooks.events e USING old WHERE e.id = old.id`,
    [retentionMs, batch],
  );
  return rowCount ?? 0;
}
