import type { Lane } from '@esim/events';
import { livemodeOf, newId } from '@esim/ids';
import { notifyAfterCommit, type Queryable } from '@esim/postgres';
import type { PartnerEvent } from '../domain/delivery.js';

/**
 * Notified when a delivery becomes due now, so workers need not wait for
 * their next poll: one channel per mode, so a worker serving one lane (#26)
 * is woken by its own mode's deliveries only.
 */
export const deliveriesDueChannels = { live: 'webhooks_deliveries_due', test: 'webhooks_deliveries_due_test' } as const satisfies Record<Lane, string>;
export const deliveriesDueChannelOf = (partnerId: string) => deliveriesDueChannels[livemodeOf(partnerId) ? 'live' : 'test'];

/**
 * Stores the event with one delivery per endpoint, each due now. Runs in the
 * consumer's transaction, which also records the event id as processed, so
 * a redelivered event never makes a second delivery to an endpoint.
 */
export async function insertEventWithDeliveries(db: Queryable, event: PartnerEvent, endpointIds: readonly string[]): Promise<string[]> {
  await insertEvent(db, event);
  return insertDeliveries(db, event, endpointIds);
}

export async function insertEvent(db: Queryable, event: PartnerEvent): Promise<void> {
  await db.query(
    `INSERT INTO webhooks.events (id, partner_id, type, order_id, payload, trace_context, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [event.id, event.partnerId, event.type, event.orderId, JSON.stringify(event.payload), JSON.stringify(event.traceContext), event.createdAt],
  );
}

/** Deliveries of one event, due now, carrying its order and time for the claim's ordering check; every replica's worker is woken once it commits (notifyAfterCommit). */
async function insertDeliveries(db: Queryable, event: PartnerEvent, endpointIds: readonly string[]): Promise<string[]> {
  if (endpointIds.length === 0) return [];
  const ids = endpointIds.map(() => newId('dlv'));
  await db.query(
    `INSERT INTO webhooks.deliveries (id, event_id, partner_id, endpoint_id, order_id, event_created_at, event_seq, status, next_attempt_at)
     SELECT t.id, $2, $3, t.endpoint_id, $5, $6, (SELECT e.seq FROM webhooks.events e WHERE e.id = $2), 'pending', now()
     FROM unnest($1::text[], $4::text[]) AS t (id, endpoint_id)`,
    [ids, event.id, event.partnerId, endpointIds, event.orderId, event.createdAt],
  );
  await notifyAfterCommit(db, deliveriesDueChannelOf(event.partnerId));
  return ids;
}
