import { AppError } from '@esim/errors';
import { enqueueEvent } from '@esim/events';
import { withTransaction, type Queryable } from '@esim/postgres';
import { clearCancelRequested, markCancelled } from '../store/cancelStore.js';
import { findEsimState, lockEsimKey, saveBundle, saveEsim } from '../store/esimStore.js';
import { findOrder, schema } from '../store/orderStore.js';
import type { OrdersDeps } from './deps.js';
import { esimLifecycle } from '../esims/lifecycle.js';
import { modeOf, ordersCancelled } from './metrics.js';
import { completeGroupCancellation } from './groupCancellation.js';
import { isGroup, type VisibleOrder } from './order.js';
import { partnerOrderViewOf } from './partnerView.js';

export interface Cancellation {
  order: VisibleOrder;
  refundedAmount: number;
}

/**
 * Steps 2–4 of the cancel saga (see cancelOrder), for an order whose
 * cancel_requested_at is set. `clearOnFailure`: a fresh request whose
 * supplier could not be reached (nothing sent) clears the flag, so "503,
 * nothing changed" holds; a resumed one (sweeper, retry) keeps it and tries
 * again next round. A revoke asked but not confirmed in time (the supplier
 * may have revoked, #23) always keeps it: the sweeper asks again and refunds
 * once the supplier answers REVOKED. A supplier refusal always clears it: the
 * order stays provisioned.
 */
export async function completeCancellation(
  deps: OrdersDeps,
  order: VisibleOrder,
  options: { via: 'request' | 'sweeper'; clearOnFailure: boolean; deadline?: number },
): Promise<Cancellation> {
  if (isGroup(order)) return completeGroupCancellation(deps, order, options);
  const iccid = order.iccid;
  if (iccid === null) throw new Error(`order ${order.id} to cancel has no eSIM`);
  let outcome;
  try {
    outcome = await deps.provisioning.revokeBundle({ accountId: order.partnerId, reference: order.id, iccid, firstBundle: order.kind === 'esim', deadline: options.deadline });
  } catch (error) {
    if (options.clearOnFailure) await clearCancelRequested(deps.pool, order.id);
    deps.logger.warn({ orderId: order.id, err: error }, 'cancel: the supplier could not revoke the bundle now');
    throw error instanceof AppError && error.code === 'UNAVAILABLE'
      ? error
      : new AppError('UNAVAILABLE', 'The supplier could not be reached to revoke the eSIM; nothing changed, retry shortly.', { cause: error });
  }
  if (outcome.revoked === 'unconfirmed') {
    // The supplier may have revoked (its answer was late): the flag stays, whatever `clearOnFailure` says, so the
    // cancel sweeper (or the partner's retry) asks again, idempotently, and completes the refund once it hears REVOKED.
    deps.logger.warn({ orderId: order.id, detail: outcome.detail }, 'cancel: the supplier did not confirm the revoke; the cancellation stays under way');
    throw new AppError('UNAVAILABLE', 'The supplier did not confirm the revoke in time; the cancellation is under way and completes by itself. Retry to see its outcome.');
  }
  if (!outcome.revoked) {
    await clearCancelRequested(deps.pool, order.id);
    deps.logger.info({ orderId: order.id, detail: outcome.detail }, 'cancel refused by the supplier');
    throw new AppError('ORDER_NOT_CANCELLABLE', `Order ${order.id} cannot be cancelled: the supplier refused to revoke it (${outcome.detail}).`);
  }
  // From here on the bundle is revoked: the flag stays until the cancellation is recorded.
  const refund = await deps.wallet.refund({ orderId: order.id, partnerId: order.partnerId, reason: `order cancelled (${order.planName})`, deadline: options.deadline });
  const cancelled = await withTransaction(deps.pool, (db) => recordCancellation(db, order.id, refund.amount));
  if (cancelled.recorded) {
    ordersCancelled.add(1, { via: options.via, ...modeOf(order.partnerId) });
    deps.logger.info({ orderId: order.id, partnerId: order.partnerId, refundedAmount: refund.amount, via: options.via }, 'order cancelled and refunded');
  }
  return { order: cancelled.order, refundedAmount: cancelled.order.refundedAmount ?? refund.amount };
}

/** Step 4: the order, its bundle and (for a first order) its eSIM cancelled, and order.cancelled, in one transaction. */
async function recordCancellation(db: Queryable, orderId: string, refundedAmount: number): Promise<{ order: VisibleOrder; recorded: boolean }> {
  const order = await findOrder(db, orderId, { forUpdate: true });
  if (order?.status === 'cancelled') return { order: order as VisibleOrder, recorded: false };
  if (!order || order.status !== 'provisioned' || order.iccid === null) throw new Error(`order ${orderId} is not provisioned; cannot record its cancellation`);
  await lockEsimKey(db, order.iccid);
  const cancelled = (await markCancelled(db, orderId, refundedAmount)) as VisibleOrder;
  const state = await findEsimState(db, order.iccid);
  const bundle = state?.bundles.find((candidate) => candidate.orderId === orderId);
  if (state && bundle) {
    const wasActive = bundle.status === 'active';
    bundle.status = 'cancelled';
    if (order.kind === 'esim') state.esim.status = 'cancelled';
    // An unused top-up that had become active (the one before it ended) hands over to the next queued one.
    else if (wasActive) esimLifecycle.activateNext(state, new Date());
    state.esim.updatedAt = new Date();
    for (const changed of state.bundles) await saveBundle(db, changed);
    await saveEsim(db, state.esim);
  }
  await enqueueEvent(db, schema, 'partner.notification', {
    partnerId: cancelled.partnerId,
    type: 'order.cancelled',
    orderId,
    payload: { order: partnerOrderViewOf(cancelled), refundedAmount },
  });
  return { order: cancelled, recorded: true };
}
