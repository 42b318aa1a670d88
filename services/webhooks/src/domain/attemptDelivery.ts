import { ROOT_CONTEXT, SpanKind, SpanStatusCode, propagation, trace, type Span } from '@opentelemetry/api';
import { open, webhookSecretRecord } from '@esim/crypto';
import { AppError } from '@esim/errors';
import type { Pool } from '@esim/postgres';
import type { Logger } from '@esim/telemetry';
import { deliveryMetrics, type AttemptOutcome } from '../delivery/metrics.js';
import { sendWebhook, type SendResult } from '../delivery/sendWebhook.js';
import { recordAttemptResult } from '../store/attemptStore.js';
import { boundedError, type AttemptResult, type ClaimedAttempt } from './delivery.js';
import { delayAfterAttempt } from './retrySchedule.js';
import { signedHeaders, webhookBody } from './signing.js';

/** Where a partner wants its webhooks and the secret to sign them with, sealed as the partners service stores it. */
export interface WebhookEndpoint {
  url: string | undefined;
  sealedSecret: string;
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
      const { result, outcome } = await decide(deps, claimed, span);
      const recorded = await recordAttemptResult(deps.pool, claimed, result);
      if (!recorded) deps.logger.warn({ deliveryId: claimed.deliveryId, eventId: event.id }, 'delivery lease expired before the outcome was recorded');
      deliveryMetrics.outcomes.add(1, { outcome });
      if (outcome === 'succeeded' && !claimed.deliveredBefore) deliveryMetrics.lagMs.record(Date.now() - event.createdAt.getTime());
      span.setAttribute('webhook.outcome', outcome);
      if (outcome !== 'succeeded') span.setStatus({ code: SpanStatusCode.ERROR, message: 'error' in result ? result.error : outcome });
      deps.logger.info({ deliveryId: claimed.deliveryId, eventId: event.id, attempt: claimed.attempt, outcome, statusCode: 'statusCode' in result ? result.statusCode : undefined }, 'webhook attempt');
      return outcome;
    } finally {
      span.end();
    }
  });
}

async function decide(deps: AttemptDeps, claimed: ClaimedAttempt, span: Span): Promise<{ result: AttemptResult; outcome: AttemptOutcome }> {
  const { event, attempt } = claimed;
  // Outcomes that sent nothing give the attempt number back.
  const unspent = attempt - 1;
  let endpoint: WebhookEndpoint;
  let secret: string;
  try {
    endpoint = await deps.endpointOf(event.partnerId);
    secret = endpoint.sealedSecret ? open(deps.dataKey, endpoint.sealedSecret, webhookSecretRecord(event.partnerId)) : '';
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

  const body = webhookBody(event);
  const headers = signedHeaders({ event, body, secret, attempt, timestampSeconds: Math.floor(Date.now() / 1_000), userAgent: deps.userAgent });
  const sent: SendResult = await sendWebhook({ url: endpoint.url, headers, body, timeoutMs: deps.timeoutMs, allowInsecure: deps.allowInsecure });
  if (sent.kind === 'refused') return { result: { status: 'failed', attempts: attempt, statusCode: null, error: boundedError(sent.reason) }, outcome: 'refused' };

  deliveryMetrics.attempts.add(1);
  if (sent.kind === 'response') span.setAttribute('http.response.status_code', sent.statusCode);
  if (sent.kind === 'response' && sent.statusCode >= 200 && sent.statusCode < 300) {
    return { result: { status: 'succeeded', attempts: attempt, statusCode: sent.statusCode }, outcome: 'succeeded' };
  }
  const statusCode = sent.kind === 'response' ? sent.statusCode : null;
  const error = boundedError(sent.kind === 'response' ? `endpoint answered HTTP ${sent.statusCode}` : sent.message);
  const delay = delayAfterAttempt(deps.schedule, attempt);
  if (delay === undefined) return { result: { status: 'failed', attempts: attempt, statusCode, error }, outcome: 'failed' };
  return { result: { status: 'pending', attempts: attempt, statusCode, error, nextAttemptInMs: delay }, outcome: 'retry' };
}
