import { AppError } from '@esim/errors';
import { pgErrorCode, withTransaction, type Queryable } from '@esim/postgres';
import { findEntry } from '../store/ledgerStore.js';
import { findReservation, markReleased } from '../store/reservationStore.js';
import type { WalletDeps } from './deps.js';
import type { LedgerEntry } from './ledger.js';
import { walletMetrics } from './metrics.js';
import { appendEntry, lockWalletFor } from './movement.js';
import { check, limits } from './rules.js';

export interface RefundInput {
  orderId: string;
  partnerId: string;
  reason: string;
}

export interface Refunded {
  entry: LedgerEntry;
  balanceAfter: number;
  replayed: boolean;
}

/**
 * The orders service cancels an order (contract §13): its price goes back
 * as one `refund` entry and the reservation, held or captured, is released.
 * Idempotent by order: a released reservation answers its refund again
 * (`replayed`), so the cancel saga and its sweeper may call as often as they
 * need. Calls for one partner queue on the wallet lock (taken before the
 * reservation's, as Reserve does), and the unique refund-per-order index is
 * the database's last word. Unlike a failed order's refund, no
 * `wallet.order.refunded` is published: that event tells orders an order
 * failed, and a cancelled order did not (orders records the cancellation
 * itself, with the amount this answers).
 */
export async function refundCancelledOrder(deps: WalletDeps, input: RefundInput): Promise<Refunded> {
  check()
    .id('orderId', 'ord', input.orderId)
    .id('partnerId', 'ptn', input.partnerId)
    .text('reason', input.reason, limits.textLength, false)
    .done();
  try {
    const refunded = await withTransaction(deps.pool, async (db) => {
      const known = await findReservation(db, input.orderId);
      if (!known || known.partnerId !== input.partnerId) throw notFound(input.orderId);
      const head = await lockWalletFor(db, known.partnerId, { create: false });
      const reservation = await findReservation(db, input.orderId, { forUpdate: true });
      if (!head || !reservation) throw new Error(`reservation ${input.orderId} lost its wallet`);
      if (reservation.state === 'released') return replayOf(db, input.orderId);
      // What was paid net of an earlier refund (a partially provisioned group order's missing eSIMs, §7).
      const earlier = reservation.partialRefundEntryId ? ((await findEntry(db, reservation.partialRefundEntryId))?.amount ?? 0) : 0;
      const entry = await appendEntry(db, head, {
        type: 'refund',
        amount: reservation.amount - earlier,
        orderId: reservation.orderId,
        description: `Refund: ${input.reason === '' ? 'order cancelled' : input.reason}`,
      });
      await markReleased(db, reservation.orderId, entry.id, ['held', 'captured']);
      return { entry, balanceAfter: entry.balanceAfter, replayed: false };
    });
    if (!refunded.replayed) {
      walletMetrics.refunds.add(1);
      walletMetrics.refundedMinor.add(refunded.entry.amount);
    }
    return refunded;
  } catch (error) {
    // Should the wallet lock ever be bypassed, the unique index refuses a second refund: answer the first.
    if (pgErrorCode(error) === '23505') return replayOf(deps.pool, input.orderId);
    throw error;
  }
}

async function replayOf(db: Queryable, orderId: string): Promise<Refunded> {
  const reservation = await findReservation(db, orderId);
  const entry = reservation?.refundEntryId ? await findEntry(db, reservation.refundEntryId) : undefined;
  if (!entry) throw new Error(`released reservation ${orderId} without its refund entry`);
  return { entry, balanceAfter: entry.balanceAfter, replayed: true };
}

function notFound(orderId: string): AppError {
  return new AppError('ORDER_NOT_FOUND', `No reservation of this partner for order ${orderId}.`);
}
