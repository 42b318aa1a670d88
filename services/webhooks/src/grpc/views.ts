import type { webhooksV1 } from '@esim/proto';
import type { Delivery } from '../domain/delivery.js';

type Init<T> = Omit<T, '$typeName' | '$unknown'>;

/** A delivery as the log shows it; proto3's "unset" stands for null. */
export function deliveryMessage(delivery: Delivery): Init<webhooksV1.Delivery> {
  return {
    id: delivery.id,
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    partnerId: delivery.partnerId,
    status: delivery.status,
    attempts: delivery.attempts,
    lastStatusCode: delivery.lastStatusCode ?? undefined,
    lastError: delivery.lastError ?? undefined,
    nextAttemptAt: delivery.nextAttemptAt?.toISOString(),
    createdAt: delivery.createdAt.toISOString(),
    updatedAt: delivery.updatedAt.toISOString(),
    deliveredAt: delivery.deliveredAt?.toISOString(),
  };
}
