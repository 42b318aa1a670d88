import { enqueueEvent, PermanentEventError, type EventEnvelope } from '@esim/events';
import type { PoolClient } from '@esim/postgres';
import type { Logger } from '@esim/telemetry';
import { findOrder, markFailed, schema } from '../store/orderStore.js';
import { wasWipedTestOrder } from '../store/testAccountStore.js';
import { modeOf, ordersFailed } from './metrics.js';
import { settleGroupRefund } from './groupOrders.js';
import { isGroup, type VisibleOrder } from './order.js';
import { partnerOrderViewOf } from './partnerView.js';

/** The consumer of wallet.order.refunded: applyRefunded, in its exactly-once transaction. */
export function recordRefund(logger: Logger) {
  return async (event: EventEnvelope<'wallet.order.refunded'>, db: PoolClient): Promise<void> => {
    await applyRefunded(db, logger, { orderId: event.data.orderId, amount: event.data.amount, fallbackReason: 'refunded by the wallet' }, { eventId: event.id });
  };
}

/**
 * The wallet refunded a failed order: only now does the order become
 * 'failed', with the partner's `provision.failed` (carrying the refunded
 * amount) in the same transaction, so the webhook never announces a failure
 * whose refund is not yet recorded. The event's consumer and the processing
 * sweeper (after its own RefundOrder) both land here; `fallbackReason` is
 * stored only when provisioning.failed never recorded one. True when this
 * call failed the order.
 */
export async function applyRefunded(
  db: PoolClient,
  logger: Logger,
  refund: { orderId: string; amount: number; fallbackReason: string },
  source: { eventId: string } | { via: 'sweeper' },
): Promise<boolean> {
  const { orderId, amount } = refund;
  const order = await findOrder(db, orderId, { forUpdate: true });
  if (!order) {
    if (await wasWipedTestOrder(db, orderId)) {
      logger.info({ orderId, ...source }, 'wallet.order.refunded for a wiped test order; ignored');
      return false;
    }
    throw new PermanentEventError(`wallet.order.refunded for unknown order ${orderId}`);
  }
  // Only a failed provisioning's refund moves an order; a cancellation's refund never publishes this event, and any other order is left as it is.
  if (order.status !== 'processing') {
    const level = order.status === 'failed' ? 'info' : 'error';
    logger[level]({ orderId, status: order.status, ...source }, 'wallet.order.refunded for an order not processing; ignored');
    return false;
  }
  if (isGroup(order)) {
    // Some units provisioned: the refund was of the missing ones only.
    const partial = await settleGroupRefund(db, order, amount);
    if (partial) {
      ordersFailed.add(1, { partial: 'true', ...modeOf(order.partnerId) });
      logger.info({ orderId, partnerId: partial.partnerId, refundedAmount: amount, ...source }, 'group order partially provisioned; missing units refunded');
      return true;
    }
  }
  const failed = (await markFailed(db, orderId, refund.fallbackReason)) as VisibleOrder;
  await enqueueEvent(db, schema, 'partner.notification', {
    partnerId: failed.partnerId,
    type: 'provision.failed',
    orderId,
    payload: { order: partnerOrderViewOf(failed), refundedAmount: amount },
  });
  ordersFailed.add(1, modeOf(failed.partnerId));
  logger.info({ orderId, partnerId: failed.partnerId, refundedAmount: amount, reason: failed.failureReason, ...source }, 'order failed and refunded');
  return true;
}
