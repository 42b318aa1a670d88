import { enqueueEvent, type EventEnvelope } from '@esim/events';
import type { Pool, PoolClient } from '@esim/postgres';
import { metrics, type Logger } from '@esim/telemetry';
import { recordSupplierCall } from '../store/supplierCalls.js';
import { cancelAtSmdp, obtainNewEsim, obtainTopUp, type ObtainResult } from './obtainEsim.js';
import { livemodeOf } from '@esim/ids';
import { steeredSku } from './magicEmails.js';
import type { Upstreams, UpstreamsByMode } from './upstreams.js';
import { retryWindowOver } from './retryPolicy.js';
import { failureReasons, type SupplierRequest } from './supplierCall.js';

const results = metrics.getMeter('provisioning').createCounter('provisioning_results_total', { description: 'Orders provisioned or failed for good, by result' });

/** A transient supplier failure inside the retry window: the consumer naks and JetStream redelivers after the backoff. */
export class SupplierUnavailableError extends Error {
  override name = 'SupplierUnavailableError';
}

export interface ProvisionOrderDeps {
  /** Each order is served by its account's mode's upstreams (contract §14). */
  upstreams: UpstreamsByMode;
  /** The upstream steps' records (each on its own, as it arrives) and the attempt records of a transient failure. */
  pool: Pool;
  /** The service's schema, whose outbox carries the result. */
  schema: string;
  retryWindowMs: number;
  logger: Logger;
}

/** What the supplier calls came to, for the short transaction that records it. */
export type ProvisionOutcome =
  | { kind: 'issued'; result: Extract<ObtainResult, { kind: 'issued' }> }
  | { kind: 'failed'; result: Exclude<ObtainResult, { kind: 'issued' }>; reason: string };

/**
 * Obtains the eSIM of one paid order from the two upstreams (contract §8:
 * the SM-DP+ makes the profile over ES2+, the connectivity provider adds
 * the bundle; for a top-up only the latter) and publishes the outcome.
 * It runs under `exactlyOnceAroundCall`: `call` talks to the upstreams with
 * no transaction open, then `record` writes the supplier_calls row and the
 * outbox event in one short transaction with the processed-event claim, and
 * the ack follows the commit. The guarantee:
 * - each upstream step's answer is kept on its own connection as soon as
 *   it arrives (obtainEsim.ts), and every call is keyed (the SM-DP+ by the
 *   functionCallIdentifier chosen for it, the provider by the order id), so
 *   however often we try, the order has at most one profile and one bundle;
 * - a crash (or a lost commit) before our commit leaves no result
 *   committed; the redelivery calls again with the same keys, resumes from
 *   the kept steps and publishes the same eSIM, and the claim lets exactly
 *   one result event commit per event id;
 * - a transient failure inside the window records the attempt and throws,
 *   so the message is redelivered after the backoff;
 * - past the window (measured from payment), or on a permanent refusal, the
 *   order fails for good with a reason a partner may read, and a profile
 *   reserved for it is cancelled at the SM-DP+; the detail stays in
 *   supplier_calls for operators.
 * Two events for the same order (a republish beyond the stream's duplicate
 * window), or two deliveries of one event at once, both get the same eSIM;
 * the orders service applies the first.
 */
export function provisionOrder(deps: ProvisionOrderDeps): {
  call: (event: EventEnvelope<'orders.order.paid'>) => Promise<ProvisionOutcome>;
  record: (event: EventEnvelope<'orders.order.paid'>, outcome: ProvisionOutcome, db: PoolClient) => Promise<void>;
} {
  return { call, record };

  async function call(event: EventEnvelope<'orders.order.paid'>): Promise<ProvisionOutcome> {
    const { orderId, partnerId: accountId, supplierSku: sku, kind, iccid, dataMb, validityDays } = event.data;
    const livemode = livemodeOf(accountId);
    const log = logFor(event);
    // A test order reaches the test upstreams only (the simulator), steered by a magic e-mail.
    const upstreams = deps.upstreams.of(accountId);
    const sentSku = steeredSku(sku, { livemode, customerEmail: event.data.customerEmail });
    const size = { ...(dataMb === undefined ? {} : { dataMb }), ...(validityDays === undefined ? {} : { validityDays }) };
    // A top-up adds a bundle to its eSIM (contract §13); the supplier answers that eSIM's profile, keyed by the same reference.
    const upstream = { upstreams, pool: deps.pool, logger: log };
    const profileType = event.data.profileType ?? upstreams.defaultProfileType;
    const result =
      kind === 'topup' && iccid !== null
        ? await obtainTopUp(upstream, { orderId, iccid, sku: sentSku, ...size })
        : await obtainNewEsim(upstream, { orderId, accountId, sku: sentSku, profileType, ...size });

    if (result.kind === 'issued') return { kind: 'issued', result };
    if (result.kind === 'rejected') return failed(upstreams, event, result, failureReasons.rejected, log);
    if (retryWindowOver(event.occurredAt, deps.retryWindowMs)) return failed(upstreams, event, result, failureReasons.retryWindowOver, log);
    const pending = { orderId, accountId, sku, state: 'pending', statusCode: result.statusCode, error: result.detail, supplierReference: null, request: requestOf(event), failureReason: null } as const;
    await recordSupplierCall(deps.pool, pending).catch(
      (error: unknown) => log.warn({ err: error }, 'could not record the supplier attempt; retrying the order anyway'),
    );
    throw new SupplierUnavailableError(`supplier unavailable (${result.cause}): ${result.detail}`);
  }

  async function record(event: EventEnvelope<'orders.order.paid'>, outcome: ProvisionOutcome, db: PoolClient): Promise<void> {
    const { orderId, partnerId: accountId, supplierSku: sku } = event.data;
    const log = logFor(event);
    const request = requestOf(event);
    if (outcome.kind === 'issued') {
      const { esim, statusCode } = outcome.result;
      const attempts = await recordSupplierCall(db, {
        orderId,
        accountId,
        sku,
        state: 'succeeded',
        statusCode,
        error: null,
        supplierReference: esim.reference,
        request,
        failureReason: null,
      });
      await enqueueEvent(db, deps.schema, 'provisioning.succeeded', {
        orderId,
        partnerId: accountId,
        supplierReference: esim.reference,
        iccid: esim.iccid,
        smdpAddress: esim.smdpAddress,
        matchingId: esim.matchingId,
        activationCode: esim.activationCode,
      });
      results.add(1, { result: 'succeeded' });
      log.info({ attempts, supplierReference: esim.reference }, 'eSIM provisioned');
      return;
    }
    const { result, reason } = outcome;
    const attempts = await recordSupplierCall(db, {
      orderId,
      accountId,
      sku,
      state: 'failed',
      statusCode: result.statusCode,
      error: result.detail,
      supplierReference: null,
      request,
      failureReason: reason,
    });
    await enqueueEvent(db, deps.schema, 'provisioning.failed', { orderId, partnerId: accountId, reason });
    const cause = result.kind === 'rejected' ? 'rejected' : 'retry_window_over';
    results.add(1, { result: 'failed', cause });
    log.warn({ attempts, cause, detail: result.detail }, 'provisioning failed for good');
  }

  /** A reserved profile the order will never use goes back (best effort) before the failure is recorded. */
  async function failed(
    upstreams: Upstreams,
    event: EventEnvelope<'orders.order.paid'>,
    result: Exclude<ObtainResult, { kind: 'issued' }>,
    reason: string,
    log: Logger,
  ): Promise<ProvisionOutcome> {
    if (event.data.kind !== 'topup') {
      const smdp = upstreams.smdpFor(event.data.profileType ?? upstreams.defaultProfileType);
      await cancelAtSmdp({ upstreams, pool: deps.pool, logger: log }, smdp, event.data.orderId, 'Available').catch((error: unknown) =>
        log.warn({ err: error }, 'could not cancel the SM-DP+ order'),
      );
    }
    return { kind: 'failed', result, reason };
  }

  function logFor(event: EventEnvelope<'orders.order.paid'>): Logger {
    const { orderId, partnerId: accountId, kind } = event.data;
    return deps.logger.child({ orderId, eventId: event.id, kind, livemode: livemodeOf(accountId) });
  }
}

/** Recorded with every attempt, so GetProvisioning can ask the supplier again exactly this. */
function requestOf(event: EventEnvelope<'orders.order.paid'>): SupplierRequest {
  const { kind, iccid, dataMb, validityDays } = event.data;
  return { kind, targetIccid: kind === 'topup' ? iccid : null, dataMb: dataMb ?? null, validityDays: validityDays ?? null };
}
