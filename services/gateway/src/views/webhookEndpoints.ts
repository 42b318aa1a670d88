import { z } from 'zod';
import { AppError } from '@esim/errors';
import { webhookEndpointView as endpointContract } from '@esim/events';
import type { webhooksV1 } from '@esim/proto';
import { isOneOf, partnerEventTypes, type PartnerEventType } from '@esim/vocabulary';
import { component } from '../http/components.js';
import { webhookUrlSchema } from './webhookUrl.js';

/** A webhook endpoint (§9): the event contract's view is the API's view. */
export const webhookEndpointView = component(
  endpointContract.extend({
    id: z.string().describe('whe_…'),
    url: z.string().describe('Where events are POSTed; the primary endpoint’s is your `webhookUrl`'),
    description: z.string().describe('Your own label, up to 500 characters'),
    eventTypes: z.array(z.enum(partnerEventTypes)).nullable().describe('The event types sent here; null: every type'),
    enabled: z.boolean().describe('false: no event is sent here (a `webhook.test` asked for by hand still is)'),
    livemode: z.boolean().describe('true: live events (test mode, §14, has endpoints of its own)'),
    disabledReason: z.string().nullable().describe('"failing" when the platform disabled it after WEBHOOK_DISABLE_AFTER of failed attempts; null otherwise'),
    createdAt: z.string(),
  }),
  'WebhookEndpoint',
  'both',
);

export const webhookEndpointWithSecret = component(
  webhookEndpointView.extend({ secret: z.string().describe('whsec_…: this endpoint’s signing secret, shown this once') }),
  'WebhookEndpointWithSecret',
  'both',
);

const eventTypesField = z
  .array(z.string().max(64))
  .max(partnerEventTypes.length * 2)
  .nullable()
  .superRefine((types, ctx) => {
    if (types === null) return;
    if (types.length === 0) ctx.addIssue({ code: 'custom', message: 'must be null (every type) or a non-empty list of event types' });
    types.forEach((type, index) => {
      if (!isOneOf(partnerEventTypes, type)) ctx.addIssue({ code: 'custom', path: [index], message: `unknown event type; one of ${partnerEventTypes.join(', ')}` });
    });
  })
  .describe('Event types to send here (§9); null or absent: every type');

export function createEndpointBody(allowInsecure: boolean) {
  return z.strictObject({
    url: webhookUrlSchema(allowInsecure),
    description: z.string().max(500).optional(),
    eventTypes: eventTypesField.optional(),
    enabled: z.boolean().optional(),
    livemode: z.boolean().optional().describe('false: a test-mode endpoint, for test events only (§14); absent: true'),
  });
}

export function updateEndpointBody(allowInsecure: boolean) {
  return z.strictObject({
    url: webhookUrlSchema(allowInsecure).optional(),
    description: z.string().max(500).optional(),
    eventTypes: eventTypesField.optional(),
    enabled: z.boolean().optional(),
  });
}

export const rotateEndpointSecretBody = z.strictObject({
  overlapHours: z.number().int().min(0).max(72).optional().describe('Hours the old secret keeps signing beside the new one (0–72, default 24)'),
});

export const recoverEndpointBody = z.strictObject({
  since: z.iso.datetime({ offset: true }).describe('Resend what did not reach this endpoint since then (within the last 30 days)'),
});

export function toWebhookEndpointView(endpoint: webhooksV1.Endpoint | undefined): z.output<typeof webhookEndpointView> {
  if (!endpoint) throw new AppError('INTERNAL', 'webhooks answered no endpoint');
  const eventTypes = endpoint.allEventTypes ? null : endpoint.eventTypes.filter((type): type is PartnerEventType => isOneOf(partnerEventTypes, type));
  return {
    id: endpoint.id,
    url: endpoint.url,
    description: endpoint.description,
    eventTypes,
    enabled: endpoint.enabled,
    livemode: endpoint.livemode,
    disabledReason: endpoint.disabledReason ?? null,
    createdAt: endpoint.createdAt,
  };
}

/** The request's event-type filter as the RPC carries it. */
export function eventTypesMessage(eventTypes: string[] | null | undefined): { allEventTypes: boolean; eventTypes: string[] } {
  return eventTypes ? { allEventTypes: false, eventTypes } : { allEventTypes: true, eventTypes: [] };
}
