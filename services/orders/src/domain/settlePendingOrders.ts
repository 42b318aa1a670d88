import { withTransaction } from '@esim/postgres';
import { reserveDeadlineMs } from '../clients/wallet.js';
import { deletePendingOrder, findStalePendingOrder } from '../store/orderStore.js';
import { confirmPayment } from './confirmPayment.js';
import { orderLogFields } from './customerLog.js';
import type { OrdersDeps } from './deps.js';
import { modeOf, ordersCreated } from './metrics.js';

export interface SweepResult {
  /** Orders whose reservation was found: now 'processing', their events written. */
  completed: string[];
  /** Orders the wallet never debited: deleted, as if never placed. */
  dropped: string[];
  /** Orders with a reservation in an unexpected state: left for an operator. */
  skipped: string[];
}

/**
 * The youngest 'pending' row the sweeper touches, whatever it is configured
 * with: a request's Reserve has given up long before (its deadline), so a
 * row this old is a crash's or an outage's, not a request still paying.
 * CreateOrder holds no lock while the wallet answers; this age is what keeps
 * the two apart (and CreateOrder releases a debit that lands after a drop).
 */
export const minimumPendingAgeMs = reserveDeadlineMs + 5_000;

/**
 * The instant an order's debit must commit by (ReserveRequest.not_after):
 * the row's creation in the database's clock plus the Reserve deadline. The
 * wallet's transaction ends itself past it (#23: a wallet paused between its
 * statements and its commit), and the sweeper only looks at a row
 * `minimumPendingAgeMs` after its creation, 5 s later, so a "no reservation"
 * it hears can no longer turn into a debit.
 */
export function reserveNotAfter(order: { createdAt: Date }): Date {
  return new Date(order.createdAt.getTime() + reserveDeadlineMs);
}

/**
 * Settles orders left 'pending' longer than `olderThanMs` (never less than
 * `minimumPendingAgeMs`): a crash, or a wallet outage, between the row's
 * insert and its confirmation. The wallet is the source of truth: a held
 * reservation means the price was debited, so the order is confirmed exactly
 * as CreateOrder would have; none means no money moved, so the row is
 * deleted and the clientRequestId freed.
 *
 * No transaction is open while the wallet answers. The row is read, the
 * wallet asked, and the decision written with a guarded statement
 * ('pending' → 'processing' with its events in one short transaction, or a
 * delete of a row still 'pending'): replicas sweeping side by side, or a
 * request confirming late, make it a no-op, so each order is settled once.
 * A wallet error ends the round; the next round retries.
 */
export async function settlePendingOrders(deps: OrdersDeps, options: { olderThanMs: number; maxOrders: number; signal?: AbortSignal }): Promise<SweepResult> {
  const result: SweepResult = { completed: [], dropped: [], skipped: [] };
  const olderThanMs = Math.max(options.olderThanMs, minimumPendingAgeMs);
  const seen: string[] = [];
  // Stopping (shutdown) ends the round between orders, never in the middle of one.
  while (seen.length < options.maxOrders && !options.signal?.aborted) {
    const order = await findStalePendingOrder(deps.pool, olderThanMs, seen);
    if (!order) break;
    seen.push(order.id);
    const log = orderLogFields(order);
    const reservation = await deps.wallet.reservation(order.id);
    if (!reservation) {
      if (await deletePendingOrder(deps.pool, order.id)) {
        result.dropped.push(order.id);
        deps.logger.info(log, 'sweeper: pending order had no reservation; dropped');
      }
    } else if (reservation.state !== 'held') {
      result.skipped.push(order.id);
      deps.logger.error({ ...log, reservationState: reservation.state }, 'sweeper: pending order has a reservation that is not held; left for an operator');
    } else {
      const walletBalance = await deps.wallet.balance(order.partnerId);
      if (await withTransaction(deps.pool, (db) => confirmPayment(db, order, walletBalance))) {
        result.completed.push(order.id);
        ordersCreated.add(1, { via: 'sweeper', ...modeOf(order.partnerId) });
        deps.logger.info({ ...log, walletBalance }, 'sweeper: pending order had a held reservation; confirmed');
      }
    }
  }
  return result;
}
