import { context, propagation } from '@opentelemetry/api';
import type { EventEnvelope } from '@esim/events';
import type { Queryable } from '@esim/postgres';
import { insertEventWithDelivery } from '../store/eventStore.js';

/**
 * A partner-facing event arrived: keep it, with one delivery due now and the
 * trace context of the span consuming it, so every attempt lands in the
 * trace of the request that caused the event. Runs in the consumer's
 * exactly-once transaction: a redelivered event is skipped before this runs,
 * and a crash before commit leaves nothing behind, so each event gets
 * exactly one delivery.
 */
export async function recordEvent(db: Queryable, envelope: EventEnvelope<'partner.notification'>): Promise<void> {
  const traceContext: Record<string, string> = {};
  propagation.inject(context.active(), traceContext);
  const { partnerId, type, orderId, payload } = envelope.data;
  await insertEventWithDelivery(db, { id: envelope.id, partnerId, type, orderId, payload, createdAt: new Date(envelope.occurredAt), traceContext });
}
