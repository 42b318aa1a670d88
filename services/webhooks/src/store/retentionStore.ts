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

/**
 * Every event, delivery and endpoint of one account, in one statement (the
 * test-data wipe, §14). Answers how many of each went.
 */
export async function deleteAccountRows(db: Queryable, partnerId: string): Promise<{ events: number; deliveries: number; endpoints: number }> {
  const { rows } = await db.query<{ events: number; deliveries: number; endpoints: number }>(
    `WITH deliveries AS (DELETE FROM webhooks.deliveries WHERE partner_id = $1 RETURNING 1),
     events AS (DELETE FROM webhooks.events WHERE partner_id = $1 RETURNING 1),
     endpoints AS (DELETE FROM webhooks.endpoints WHERE partner_id = $1 RETURNING 1)
     SELECT (SELECT count(*) FROM events)::int AS events, (SELECT count(*) FROM deliveries)::int AS deliveries, (SELECT count(*) FROM endpoints)::int AS endpoints`,
    [partnerId],
  );
  return rows[0]!;
}
