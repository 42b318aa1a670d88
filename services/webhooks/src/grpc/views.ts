import type { webhooksV1 } from '@esim/proto';
import type { Delivery } from '../domain/delivery.js';
import type { EndpointView } from '../domain/endpoint.js';

type Init<T> = Omit<T, '$typeName' | '$unknown'>;

/** A delivery as the log shows it; proto3's "unset" stands for null. */
export function deliveryMessage(delivery: Delivery): Init<webhooksV1.Delivery> {
  return {
    id: delivery.id,
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    partnerId: delivery.partnerId,
    livemode: delivery.livemode,
    endpointId: delivery.endpointId,
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

/** An endpoint as the API shows it; no secret. */
export function endpointMessage(endpoint: EndpointView): Init<webhooksV1.Endpoint> {
  return {
    id: endpoint.id,
    partnerId: endpoint.partnerId,
    url: endpoint.url,
    description: endpoint.description,
    allEventTypes: endpoint.eventTypes === null,
    eventTypes: endpoint.eventTypes ?? [],
    enabled: endpoint.enabled,
    livemode: endpoint.livemode,
    disabledReason: endpoint.disabledReason ?? undefined,
    createdAt: endpoint.createdAt.toISOString(),
    primary: endpoint.primary,
  };
}
