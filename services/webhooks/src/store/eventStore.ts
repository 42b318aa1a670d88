import { newId } from '@esim/ids';
import type { Queryable } from '@esim/postgres';
import type { PartnerEvent } from '../domain/delivery.js';

/** Notified when a delivery becomes due now, so workers need not wait for their next poll. */
export const deliveriesDueChannel = 'webhooks_deliveries_due';

/**
 * Stores the event with its one delivery, due now. Runs in the consumer's
 * transaction, which also records the event id as processed, so a
 * redelivered event never makes a second delivery.
 */
export async function insertEventWithDelivery(db: Queryable, event: PartnerEvent): Promise<string> {
  await db.query(
    `INSERT INTO webhooks.events (id, partner_id, type, order_id, payload, trace_context, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [event.id, event.partnerId, event.type, event.orderId, JSON.stringify(event.payload), JSON.stringify(event.traceContext), event.createdAt],
  );
  const deliveryId = newId('dlv');
  // The NOTIFY wakes every replica's delivery worker once this transaction commits.
  await db.query(
    `WITH inserted AS (INSERT INTO webhooks.deliveries (id, event_id, partner_id, status, next_attempt_at) VALUES ($1, $2, $3, 'pending', now()) RETURNING 1)
     SELECT pg_notify($4, '') FROM inserted`,
    [deliveryId, event.id, event.partnerId, deliveriesDueChannel],
  );
  return deliveryId;
}
