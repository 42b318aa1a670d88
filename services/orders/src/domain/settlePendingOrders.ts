import { withTransaction } from '@esim/postgres';
import { deletePendingOrder, lockStalePendingOrder } from '../store/orderStore.js';
import { confirmPayment } from './confirmPayment.js';
import { orderLogFields } from './customerLog.js';
import type { OrdersDeps } from './deps.js';
import { ordersCreated } from './metrics.js';

export interface SweepResult {
  /** Orders whose reservation was found: now 'processing', their events written. */
  completed: string[];
  /** Orders the wallet never debited: deleted, as if never placed. */
  dropped: string[];
  /** Orders with a reservation in an unexpected state: left for an operator. */
  skipped: string[];
}

/**
 * Settles orders left 'pending' longer than `olderThanMs` (a crash, or a
 * wallet outage, between the row's insert and its confirmation). The wallet
 * is the source of truth: a held reservation means the price was debited, so
 * the order is confirmed exactly as CreateOrder would have; none means no
 * money moved, so the row is deleted and the clientRequestId freed.
 *
 * One order per transaction, locked FOR UPDATE SKIP LOCKED: replicas sweep
 * side by side without settling an order twice, and a request still paying
 * (it holds the lock) is never raced. The lock is held across the wallet's
 * answer (bounded by the client's deadline) so the decision and its effect
 * commit together. A wallet error ends the round; the next round retries.
 */
export async function settlePendingOrders(deps: OrdersDeps, options: { olderThanMs: number; maxOrders: number }): Promise<SweepResult> {
  const result: SweepResult = { completed: [], dropped: [], skipped: [] };
  while (result.completed.length + result.dropped.length + result.skipped.length < options.maxOrders) {
    const settled = await withTransaction(deps.pool, async (db) => {
      const order = await lockStalePendingOrder(db, options.olderThanMs, result.skipped);
      if (!order) return false;
      const log = orderLogFields(order);
      const reservation = await deps.wallet.reservation(order.id);
      if (!reservation) {
        await deletePendingOrder(db, order.id);
        result.dropped.push(order.id);
        deps.logger.info(log, 'sweeper: pending order had no reservation; dropped');
      } else if (reservation.state !== 'held') {
        result.skipped.push(order.id);
        deps.logger.error({ ...log, reservationState: reservation.state }, 'sweeper: pending order has a reservation that is not held; left for an operator');
      } else {
        const walletBalance = await deps.wallet.balance(order.partnerId);
        await confirmPayment(db, order, walletBalance);
        result.completed.push(order.id);
        ordersCreated.add(1, { via: 'sweeper' });
        deps.logger.info({ ...log, walletBalance }, 'sweeper: pending order had a held reservation; confirmed');
      }
      return true;
    });
    if (!settled) break;
  }
  return result;
}
