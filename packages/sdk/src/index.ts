/**
 * @esim/sdk: the partner API from TypeScript. `createClient` for calls,
 * `webhooks.verify` for the events the platform sends you.
 */
export { createClient, type ClientOptions, type CreatedOrder, type Esim, type EsimClient, type LedgerEntry, type Order, type OrderRequest, type Plan, type Quote, type QuoteRequest, type Wallet } from './client.js';
export { EsimApiError, WebhookVerificationError, type Problem, type ProblemCode } from './errors.js';
export type { WebhookEvent, WebhookEventOf, WebhookEventType, WebhookOrder } from './events.js';
export type { FiltersOf, ItemOf, PagedPath, PageOf } from './paging.js';
export { retryAfterMs, type RetryOptions } from './retry.js';
export type { TestHelpers } from './testHelpers.js';
export { verify as verifyWebhook, webhooks, type HeaderBag, type VerifyOptions } from './webhooks.js';
export type { components, operations, paths } from './generated/partner.js';
