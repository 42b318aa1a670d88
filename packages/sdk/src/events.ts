import type { components } from './generated/events.js';

/**
 * Every webhook event (contract §9, §13), generated from the platform's
 * AsyncAPI document, whose schemas come from the zod schemas that build the
 * events: narrow on `type` and `data` is typed.
 */
export type WebhookEvent = components['schemas']['WebhookEvent'];
export type WebhookEventType = WebhookEvent['type'];
export type WebhookEventOf<T extends WebhookEventType> = Extract<WebhookEvent, { type: T }>;
/** The order a webhook carries (the order view without its QR code). */
export type WebhookOrder = components['schemas']['WebhookOrder'];
