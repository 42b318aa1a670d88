import { ROOT_CONTEXT, SpanKind, SpanStatusCode, propagation, trace, type Span } from '@opentelemetry/api';
import { open, webhookSecretRecord } from '@esim/crypto';
import { AppError } from '@esim/errors';
import { enqueueEvent } from '@esim/events';
import { withTransaction, type Pool, type Queryable } from '@esim/postgres';
import type { Logger } from '@esim/telemetry';
import { deliveryMetrics, modeLabel, type AttemptOutcome } from '../delivery/metrics.js';
import { sendWebhook, type SendResult } from '../delivery/sendWebhook.js';
import { recordAttemptResult } from '../store/attemptStore.js';
import { findEndpoint, recordEndpointFailure, recordEndpointSuccess } from '../store/endpointStore.js';
import { disableAfterAttempts, endpointPayload, humanDuration, type Endpoint, type EndpointView } from './endpoint.js';
import { boundedError, type AttemptResult, type ClaimedAttempt } from './delivery.js';
import { delayAfterAttempt } from './retrySchedule.js';
import { signedHeaders, webhookBody } from './signing.js';

/** Where a partner wants its webhooks and the secret to sign them with, sealed as the partners service stores it. */
export interface WebhookEndpoint {
  url: string | undefined;
  sealedSecret: string;
  /** The partner's e-mail address: where an auto-disable notice goes. */
  email?: string | undefined;
  /** During a rotation's overlap: the old secret, sealed, and when it stops signing (ISO 8601). */
  previousSealedSecret?: string | undefined;
  previousSecretExpiresAt?: string | undefined;
}

export interface AttemptDeps {
  pool: Pool;
  /** Asked at every attempt (from a cache that a changed URL or a rotated secret drops), so a change applies to the next one. */
  endpointOf(partnerId: string): Promise<WebhookEndpoint>;
  dataKey: Buffer;
  schedule: readonly number[];
  timeoutMs: number;
  allowInsecure: boolean;
  userAgent: string;
  /** WEBHOOK_DISABLE_AFTER: an endpoint failing every attempt this long (and at least 10 times) is disabled. */
  disableAfterMs: number;
  logger: Logger;
}

/** When the endpoint cannot be looked up (the partners service is down), the delivery waits this long without spending an attempt. */
const lookupRetryMs = 5_000;

const tracer = trace.getTracer('webhooks');

/**
 * One attempt of one leased delivery, as a CLIENT span in the trace of the
 * order that caused the event. The outcome is written only if the lease is
 * still ours. Guarantee: a crash between sending and recording leaves the
 * lease to expire, and the event is sent again with the next attempt number,
 * so a partner may see one event twice (at least once; dedupe by id) but
 * never an attempt that was not numbered.
 */
export function attemptDelivery(deps: AttemptDeps, claimed: ClaimedAttempt): Promise<AttemptOutcome> {
  const { event } = claimed;
  const parent = propagation.extract(ROOT_CONTEXT, event.traceContext);
  const attributes = {
    'webhook.event_id': event.id,
    'webhook.event_type': event.type,
    'webhook.delivery_id': claimed.deliveryId,
    'webhook.attempt': claimed.attempt,
  };
  return tracer.startActiveSpan(`webhook deliver ${event.type}`, { kind: SpanKind.CLIENT, attributes }, parent, async (span) => {
    try {
      const { result, outcome, sentTo } = await decide(deps, claimed, span);
      const recorded = await recordOutcome(deps, claimed, result, sentTo);
      if (!recorded) deps.logger.warn({ deliveryId: claimed.deliveryId, eventId: event.id }, 'delivery lease expired before the outcome was recorded');
      deliveryMetrics.outcomes.add(1, { outcome, ...modeLabel(event.partnerId) });
      if (outcome === 'succeeded' && !claimed.deliveredBefore) deliveryMetrics.lagMs.record(Date.now() - event.createdAt.getTime(), modeLabel(event.partnerId));
      span.setAttribute('webhook.outcome', outcome);
      if (outcome !== 'succeeded') span.setStatus({ code: SpanStatusCode.ERROR, message: 'error' in result ? result.error : outcome });
      deps.logger.info({ deliveryId: claimed.deliveryId, eventId: event.id, attempt: claimed.attempt, outcome, statusCode: 'statusCode' in result ? result.statusCode : undefined }, 'webhook attempt');
      return outcome;
    } finally {
      span.end();
    }
  });
}

/** Where an attempt went: what the endpoint accounting (auto-disable) needs. */
interface SentTo {
  endpoint: Endpoint;
  /** The URL the view shows (the primary endpoint's comes from the partners service). */
  url: string;
  succeeded: boolean;
}

type Decision = { result: AttemptResult; outcome: AttemptOutcome; sentTo?: SentTo };

async function decide(deps: AttemptDeps, claimed: ClaimedAttempt, span: Span): Promise<Decision> {
  const { event, attempt } = claimed;
  // Outcomes that sent nothing give the attempt number back.
  const unspent = attempt - 1;
  const target = await findEndpoint(deps.pool, claimed.endpointId);
  if (!target) return { result: { status: 'no_endpoint', attempts: unspent, error: 'the webhook endpoint was deleted' }, outcome: 'no_endpoint' };
  // A test asked for by hand goes to a disabled endpoint too: it is how a partner checks its receiver before enabling it again.
  if (!target.enabled && event.type !== 'webhook.test') {
    return { result: { status: 'failed', attempts: unspent, statusCode: null, error: 'the webhook endpoint is disabled' }, outcome: 'failed' };
  }
  let signing: { url: string; secret: string; previousSecret: string | undefined };
  if (target.primary) {
    const primary = await primarySigning(deps, claimed);
    if ('result' in primary) return primary;
    signing = primary;
  } else {
    const overlapping = target.previousSecretSealed && target.previousSecretUntil && target.previousSecretUntil.getTime() > Date.now();
    signing = {
      url: target.url!,
      secret: open(deps.dataKey, target.secretSealed!, webhookSecretRecord(event.partnerId)),
      previousSecret: overlapping ? open(deps.dataKey, target.previousSecretSealed!, webhookSecretRecord(event.partnerId)) : undefined,
    };
  }

  const body = webhookBody(event);
  const headers = signedHeaders({ event, body, ...signing, attempt, timestampSeconds: Math.floor(Date.now() / 1_000), userAgent: deps.userAgent });
  const sent: SendResult = await sendWebhook({ url: signing.url, headers, body, timeoutMs: deps.timeoutMs, allowInsecure: deps.allowInsecure });
  if (sent.kind === 'refused') return { result: { status: 'failed', attempts: attempt, statusCode: null, error: boundedError(sent.reason) }, outcome: 'refused' };

  deliveryMetrics.attempts.add(1, modeLabel(event.partnerId));
  if (sent.kind === 'response') span.setAttribute('http.response.status_code', sent.statusCode);
  if (sent.kind === 'response' && sent.statusCode >= 200 && sent.statusCode < 300) {
    return { result: { status: 'succeeded', attempts: attempt, statusCode: sent.statusCode }, outcome: 'succeeded', sentTo: { endpoint: target, url: signing.url, succeeded: true } };
  }
  const sentTo = { endpoint: target, url: signing.url, succeeded: false };
  const statusCode = sent.kind === 'response' ? sent.statusCode : null;
  const error = boundedError(sent.kind === 'response' ? `endpoint answered HTTP ${sent.statusCode}` : sent.message);
  const delay = delayAfterAttempt(deps.schedule, attempt);
  if (delay === undefined) return { result: { status: 'failed', attempts: attempt, statusCode, error }, outcome: 'failed', sentTo };
  return { result: { status: 'pending', attempts: attempt, statusCode, error, nextAttemptInMs: delay }, outcome: 'retry', sentTo };
}

/** The primary endpoint is the partner's webhookUrl, signed with the secret issued at approval: both come from the partners service. */
async function primarySigning(
  deps: AttemptDeps,
  claimed: ClaimedAttempt,
): Promise<Decision | { url: string; secret: string; previousSecret: string | undefined }> {
  const { event, attempt } = claimed;
  const unspent = attempt - 1;
  let endpoint: WebhookEndpoint;
  let secret: string;
  let previousSecret: string | undefined;
  try {
    endpoint = await deps.endpointOf(event.partnerId);
    secret = endpoint.sealedSecret ? open(deps.dataKey, endpoint.sealedSecret, webhookSecretRecord(event.partnerId)) : '';
    const overlapping = endpoint.previousSealedSecret && endpoint.previousSecretExpiresAt && Date.parse(endpoint.previousSecretExpiresAt) > Date.now();
    previousSecret = overlapping ? open(deps.dataKey, endpoint.previousSealedSecret!, webhookSecretRecord(event.partnerId)) : undefined;
  } catch (error) {
    if (error instanceof AppError && error.code === 'PARTNER_NOT_FOUND') {
      return { result: { status: 'failed', attempts: unspent, statusCode: null, error: `partner ${event.partnerId} does not exist` }, outcome: 'failed' };
    }
    deps.logger.error({ err: error, deliveryId: claimed.deliveryId }, 'could not get the webhook endpoint; will retry');
    const message = error instanceof AppError ? error.message : 'could not open the signing secret';
    return {
      result: { status: 'pending', attempts: unspent, statusCode: null, error: boundedError(`webhook endpoint lookup failed: ${message}`), nextAttemptInMs: lookupRetryMs },
      outcome: 'retry',
    };
  }
  if (!endpoint.url) return { result: { status: 'no_endpoint', attempts: unspent, error: 'partner has no webhook URL' }, outcome: 'no_endpoint' };
  if (!secret) return { result: { status: 'no_endpoint', attempts: unspent, error: 'partner has no webhook signing secret yet' }, outcome: 'no_endpoint' };
  return { url: endpoint.url, secret, previousSecret };
}

/**
 * Writes the attempt's outcome (only while the lease is ours) and, in the
 * same transaction, the endpoint's failing streak: a success ends it; a
 * failure that completes WEBHOOK_DISABLE_AFTER of failing (and at least 10
 * attempts) disables the endpoint, e-mails the partner and tells its other
 * endpoints (`webhook.endpoint_disabled`). The disabling statement answers
 * only the attempt that disabled it, so the notice goes out once.
 */
async function recordOutcome(deps: AttemptDeps, claimed: ClaimedAttempt, result: AttemptResult, sentTo: SentTo | undefined): Promise<boolean> {
  if (!sentTo) return recordAttemptResult(deps.pool, claimed, result);
  // Looked up before the transaction (cached): no network call while it is open.
  const email = sentTo.succeeded ? undefined : await partnerEmail(deps, claimed.event.partnerId);
  return withTransaction(deps.pool, async (db) => {
    if (!(await recordAttemptResult(db, claimed, result))) return false;
    if (sentTo.succeeded) {
      await recordEndpointSuccess(db, sentTo.endpoint.id);
      return true;
    }
    const disabled = await recordEndpointFailure(db, sentTo.endpoint.id, deps.disableAfterMs, disableAfterAttempts);
    if (disabled) await announceDisabled(db, { ...disabled, url: sentTo.url }, email, deps.disableAfterMs);
    return true;
  });
}

async function partnerEmail(deps: AttemptDeps, partnerId: string): Promise<string | undefined> {
  try {
    return (await deps.endpointOf(partnerId)).email || undefined;
  } catch {
    // The partners service is down: the endpoint is still disabled; only the e-mail is lost, and the log says so.
    return undefined;
  }
}

async function announceDisabled(db: Queryable, endpoint: EndpointView, email: string | undefined, disableAfterMs: number): Promise<void> {
  await enqueueEvent(db, 'webhooks', 'partner.notification', {
    partnerId: endpoint.partnerId,
    type: 'webhook.endpoint_disabled',
    orderId: null,
    payload: { endpoint: endpointPayload(endpoint) },
  });
  if (email) {
    await enqueueEvent(db, 'webhooks', 'mail.requested', {
      to: email,
      template: 'webhook_endpoint_disabled',
      values: { endpointId: endpoint.id, url: endpoint.url, failingFor: humanDuration(disableAfterMs) },
      sealedValues: {},
    });
  }
}
