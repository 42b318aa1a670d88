import { AppError } from '@esim/errors';
import { isId } from '@esim/ids';
import { withTransaction } from '@esim/postgres';
import { markCancelRequested } from '../store/cancelStore.js';
import { findOrder } from '../store/orderStore.js';
import { checkCancellable } from './cancelRules.js';
import { completeCancellation, type Cancellation } from './completeCancellation.js';
import type { OrdersDeps } from './deps.js';
import { withGroupEsims } from './groupOrders.js';
import { isVisible } from './order.js';

/**
 * A partner cancels an unused order (contract §13), as a saga whose every
 * step is idempotent:
 * 1. under the order's lock, the rules are checked and cancel_requested_at
 *    is committed (a cancelled order answers again, refunding nothing);
 * 2. provisioning revokes the bundle at the supplier (refused or
 *    unreachable: the flag is cleared, nothing changed);
 * 3. the wallet refunds the price (RefundOrder, once per order);
 * 4. one transaction records the order, bundle and eSIM cancelled and the
 *    partner's order.cancelled event.
 * A crash after 1 leaves the flag: the cancel sweeper (or the partner's
 * retry) runs 2–4 again, which is safe since each step answers its earlier
 * effect. `partnerId` '' is an operator.
 */
export async function cancelOrder(deps: OrdersDeps, request: { partnerId: string; orderId: string }, deadline?: number): Promise<Cancellation & { alreadyCancelled: boolean }> {
  const begun = await withTransaction(deps.pool, async (db) => {
    const order = isId('ord', request.orderId) ? await findOrder(db, request.orderId, { forUpdate: true }) : undefined;
    if (!order || !isVisible(order) || order.groupOrderId !== null || (request.partnerId !== '' && order.partnerId !== request.partnerId)) {
      throw new AppError('ORDER_NOT_FOUND', `No order ${request.orderId}.`);
    }
    if (order.status === 'cancelled') return { order, resumed: true, done: true };
    // Already under way (a concurrent request, or one a crash interrupted): finish it.
    if (order.cancelRequestedAt) return { order, resumed: true, done: false };
    await checkCancellable(db, order, deps.cancelWindowMs);
    const marked = await markCancelRequested(db, order.id);
    if (!marked || !isVisible(marked)) throw new Error(`order ${order.id} changed while locked`);
    return { order: marked, resumed: false, done: false };
  });
  if (begun.done) {
    const [order] = await withGroupEsims(deps.pool, [begun.order]);
    return { order: order ?? begun.order, refundedAmount: begun.order.refundedAmount ?? 0, alreadyCancelled: true };
  }
  return { ...(await completeCancellation(deps, begun.order, { via: 'request', clearOnFailure: !begun.resumed, deadline })), alreadyCancelled: false };
}
