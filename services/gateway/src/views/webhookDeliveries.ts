import { z } from 'zod';
import type { webhooksV1 } from '@esim/proto';
import { deliveryStatuses, isOneOf, partnerEventTypes } from '@esim/vocabulary';
import { AppError } from '@esim/errors';
import { component } from '../http/components.js';

/** A delivery in the partner's own log (§9); the admin view adds the partner id. */
export const webhookDeliveryView = component(
  z.object({
    id: z.string().describe('dlv_…'),
    eventId: z.string().describe('evt_…: the id the webhook carries (body `id`, `X-SERVICE-Event-Id`, `webhook-id`)'),
    eventType: z.enum(partnerEventTypes),
    endpointId: z.string().nullable().describe('whe_…: the endpoint this delivery goes to'),
    livemode: z.boolean().describe('false: a test-mode delivery (§14)'),
    status: z.enum(deliveryStatuses).describe('pending (nextAttemptAt set) → succeeded | failed; no_endpoint when there was no webhook URL'),
    attempts: z.number().int().describe('HTTP attempts made so far'),
    lastStatusCode: z.number().int().nullable().describe('HTTP status of the last attempt; null when it got no answer'),
    lastError: z.string().nullable().describe('Why the last attempt failed'),
    nextAttemptAt: z.string().nullable().describe('When the next attempt is due; null unless pending'),
    createdAt: z.string(),
    updatedAt: z.string(),
    deliveredAt: z.string().nullable().describe('When an attempt first got a 2xx'),
  }),
  'WebhookDelivery',
  'both',
);

export const adminWebhookDeliveryView = component(webhookDeliveryView.extend({ partnerId: z.string() }), 'AdminWebhookDelivery', 'admin');

export function toWebhookDeliveryView(delivery: webhooksV1.Delivery): z.output<typeof webhookDeliveryView> {
  if (!isOneOf(deliveryStatuses, delivery.status) || !isOneOf(partnerEventTypes, delivery.eventType)) {
    throw new AppError('INTERNAL', `delivery ${delivery.id} has status ${delivery.status} and type ${delivery.eventType}`);
  }
  return {
    id: delivery.id,
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    endpointId: delivery.endpointId ?? null,
    livemode: delivery.livemode,
    status: delivery.status,
    attempts: delivery.attempts,
    lastStatusCode: delivery.lastStatusCode ?? null,
    lastError: delivery.lastError ?? null,
    nextAttemptAt: delivery.nextAttemptAt ?? null,
    createdAt: delivery.createdAt,
    updatedAt: delivery.updatedAt,
    deliveredAt: delivery.deliveredAt ?? null,
  };
}

export function toAdminWebhookDeliveryView(delivery: webhooksV1.Delivery): z.output<typeof adminWebhookDeliveryView> {
  return { ...toWebhookDeliveryView(delivery), partnerId: delivery.partnerId };
}
