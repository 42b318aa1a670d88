import { AppError } from '@esim/errors';
import { enqueueEvent } from '@esim/events';
import { isId } from '@esim/ids';
import { withTransaction, type Pool } from '@esim/postgres';
import { makeDueNow } from '../store/deliveryStore.js';
import type { Delivery } from './delivery.js';

export interface AuditContext {
  operator: string;
  requestId: string;
  /** The free-text X-Operator header, recorded as the entry's note; never the actor. */
  note?: string;
}

/**
 * An operator redelivers: whatever its state (failed, no_endpoint, even
 * succeeded), the delivery is pending again with its next attempt now, and
 * its attempts keep counting. The action is audited in the same transaction.
 */
export async function retryDelivery(pool: Pool, id: string, audit: AuditContext): Promise<Delivery> {
  if (!isId('dlv', id)) throw notFound(id);
  return withTransaction(pool, async (db) => {
    const delivery = await makeDueNow(db, id);
    if (!delivery) throw notFound(id);
    await enqueueEvent(db, 'webhooks', 'audit.recorded', {
      action: 'webhook_delivery.retried',
      target: id,
      operator: audit.operator,
      requestId: audit.requestId,
      note: audit.note ?? '',
      details: { partnerId: delivery.partnerId, eventId: delivery.eventId, eventType: delivery.eventType, attempts: delivery.attempts },
      occurredAt: new Date().toISOString(),
    });
    return delivery;
  });
}

function notFound(id: string): AppError {
  return new AppError('NOT_FOUND', `No webhook delivery ${id}.`);
}
