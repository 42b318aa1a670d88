import { enqueueEvent, type EventEnvelope } from '@esim/events';
import type { Pool, PoolClient } from '@esim/postgres';
import { metrics, type Logger } from '@esim/telemetry';
import { recordSupplierCall } from '../store/supplierCalls.js';
import type { SupplierClient, SupplierResult } from '../supplier/supplierClient.js';
import { retryWindowOver } from './retryPolicy.js';
import { failureReasons, type SupplierRequest } from './supplierCall.js';

const results = metrics.getMeter('provisioning').createCounter('provisioning_results_total', { description: 'Orders provisioned or failed for good, by result' });

/** A transient supplier failure inside the retry window: the consumer naks and JetStream redelivers after the backoff. */
export class SupplierUnavailableError extends Error {
  override name = 'SupplierUnavailableError';
}

export interface ProvisionOrderDeps {
  supplier: SupplierClient;
  /** For the attempt record that must survive the handler's rolled-back transaction. */
  pool: Pool;
  /** The service's schema, whose outbox carries the result. */
  schema: string;
  retryWindowMs: number;
  logger: Logger;
}

/**
 * Asks the supplier for the eSIM of one paid order (for a top-up, a bundle
 * on its existing eSIM) and publishes the outcome.
 * It runs inside `exactlyOnce`'s transaction: the supplier_calls row, the
 * outbox event and the processed-event claim commit together, and the ack
 * follows the commit. The guarantee:
 * - the supplier is keyed by the order id, so however often we call it, the
 *   order has at most one eSIM;
 * - a crash (or a lost commit) between the supplier's answer and our commit
 *   leaves nothing committed; the redelivery calls the supplier again with
 *   the same reference and gets the same eSIM back, so exactly one result
 *   event is committed per event id;
 * - a transient failure inside the window records the attempt on its own
 *   connection (best effort, outside the transaction that rolls back) and
 *   throws, so the message is redelivered after the backoff;
 * - past the window (measured from payment), or on a rejection, the order
 *   fails for good with a reason a partner may read; the detail stays in
 *   supplier_calls for operators.
 * Two events for the same order (a republish beyond the stream's duplicate
 * window) both get the same eSIM; the orders service applies the first.
 */
export function provisionOrder(deps: ProvisionOrderDeps): (event: EventEnvelope<'orders.order.paid'>, db: PoolClient) => Promise<void> {
  return async (event, db) => {
    const { orderId, supplierSku: sku, kind, iccid, dataMb, validityDays } = event.data;
    const log = deps.logger.child({ orderId, eventId: event.id, kind });
    const size = { ...(dataMb === undefined ? {} : { dataMb }), ...(validityDays === undefined ? {} : { validityDays }) };
    // Recorded with every attempt, so GetProvisioning can ask the supplier again exactly this.
    const request: SupplierRequest = { kind, targetIccid: kind === 'topup' ? iccid : null, dataMb: dataMb ?? null, validityDays: validityDays ?? null };
    // A top-up adds a bundle to its eSIM (contract §13); the supplier answers that eSIM's profile, keyed by the same reference.
    const result =
      kind === 'topup' && iccid !== null
        ? await deps.supplier.addBundle({ iccid, sku, reference: orderId, ...size })
        : await deps.supplier.requestEsim({ sku, reference: orderId, ...size });

    if (result.kind === 'issued') {
      const { esim } = result;
      const attempts = await recordSupplierCall(db, {
        orderId,
        sku,
        state: 'succeeded',
        statusCode: result.statusCode,
        error: null,
        supplierReference: esim.reference,
        request,
        failureReason: null,
      });
      await enqueueEvent(db, deps.schema, 'provisioning.succeeded', {
        orderId,
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
    if (result.kind === 'rejected') {
      await fail(db, event, request, result, failureReasons.rejected, log);
      return;
    }
    if (retryWindowOver(event.occurredAt, deps.retryWindowMs)) {
      await fail(db, event, request, result, failureReasons.retryWindowOver, log);
      return;
    }
    const pending = { orderId, sku, state: 'pending', statusCode: result.statusCode, error: result.detail, supplierReference: null, request, failureReason: null } as const;
    await recordSupplierCall(deps.pool, pending).catch(
      (error: unknown) => log.warn({ err: error }, 'could not record the supplier attempt; retrying the order anyway'),
    );
    throw new SupplierUnavailableError(`supplier unavailable (${result.cause}): ${result.detail}`);
  };

  async function fail(
    db: PoolClient,
    event: EventEnvelope<'orders.order.paid'>,
    request: SupplierRequest,
    result: Exclude<SupplierResult, { kind: 'issued' }>,
    reason: string,
    log: Logger,
  ): Promise<void> {
    const { orderId, supplierSku: sku } = event.data;
    const attempts = await recordSupplierCall(db, {
      orderId,
      sku,
      state: 'failed',
      statusCode: result.statusCode,
      error: result.detail,
      supplierReference: null,
      request,
      failureReason: reason,
    });
    await enqueueEvent(db, deps.schema, 'provisioning.failed', { orderId, reason });
    const cause = result.kind === 'rejected' ? 'rejected' : 'retry_window_over';
    results.add(1, { result: 'failed', cause });
    log.warn({ attempts, cause, detail: result.detail }, 'provisioning failed for good');
  }
}
