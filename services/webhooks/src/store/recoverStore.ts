import { newId } from '@esim/ids';
import type { Queryable } from '@esim/postgres';
import type { PartnerEventType } from '@esim/vocabulary';
import { deliveriesDueChannelOf } from './eventStore.js';

/**
 * Queues to one endpoint, again, every event of its partner since `since`
 * (`webhook.test` aside: a test went where it was aimed; and the notice of
 * its own disabling, meant for the partner's other endpoints) whose delivery to
 * it failed or never happened: a failed or no_endpoint delivery becomes
 * pending with a fresh schedule; an event it never got (disabled, filtered
 * then, created before it) gets a new delivery. Due times follow the events'
 * order a microsecond apart, so the worker takes them in order (with the
 * usual guarantee: one order's or eSIM's events one after another, others
 * side by side within the partner's concurrency). A pending or
 * succeeded delivery is left alone, so recovering twice sends nothing twice.
 * One statement: a crash queues all of them or none.
 */
export async function requeueSince(
  db: Queryable,
  endpoint: { id: string; partnerId: string; eventTypes: PartnerEventType[] | null },
  since: Date,
  maxEvents: number,
): Promise<number> {
  const { rows } = await db.query<{ event_id: string; order_id: string | null; created_at: Date; seq: string }>(
    `SELECT e.id AS event_id, e.order_id, e.created_at, e.seq FROM webhooks.events e
     WHERE e.partner_id = $1 AND e.created_at >= $2 AND e.type <> 'webhook.test'
       AND ($3::text[] IS NULL OR e.type = ANY($3))
       AND NOT (e.type = 'webhook.endpoint_disabled' AND e.payload->'endpoint'->>'id' = $4)
       AND NOT EXISTS (SELECT 1 FROM webhooks.deliveries d WHERE d.event_id = e.id AND d.endpoint_id = $4 AND d.status IN ('pending', 'succeeded'))
     ORDER BY e.seq
     LIMIT $5`,
    [endpoint.partnerId, since, endpoint.eventTypes, endpoint.id, maxEvents],
  );
  if (rows.length === 0) return 0;
  const ids = rows.map(() => newId('dlv'));
  const { rowCount } = await db.query(
    `INSERT INTO webhooks.deliveries (id, event_id, partner_id, endpoint_id, order_id, event_created_at, event_seq, status, next_attempt_at)
     SELECT t.id, t.event_id, $3, $4, t.order_id, t.created_at, t.seq, 'pending', now() + t.n * interval '1 microsecond'
     FROM unnest($1::text[], $2::text[], $5::text[], $6::timestamptz[], $7::bigint[]) WITH ORDINALITY AS t (id, event_id, order_id, created_at, seq, n)
     ON CONFLICT (event_id, endpoint_id) DO UPDATE SET
       status = 'pending', attempts = 0, next_attempt_at = EXCLUDED.next_attempt_at, locked_until = NULL, lease_id = NULL, updated_at = now()
     WHERE webhooks.deliveries.status IN ('failed', 'no_endpoint')`,
    [ids, rows.map((row) => row.event_id), endpoint.partnerId, endpoint.id, rows.map((row) => row.order_id), rows.map((row) => row.created_at), rows.map((row) => row.seq)],
  );
  await db.query(`SELECT pg_notify($1, '')`, [deliveriesDueChannelOf(endpoint.partnerId)]);
  return rowCount ?? 0;
}
