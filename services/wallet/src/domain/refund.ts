import { AppError } from '@esim/errors';
import { pgErrorCode, withTransaction, type Queryable } from '@esim/postgres';
import { createLogger, type Logger } from '@esim/telemetry';
import { findEntry } from '../store/ledgerStore.js';
import { findReservation, markPartlyRefunded, markReleased } from '../store/reservationStore.js';
import type { WalletDeps } from './deps.js';
import type { LedgerEntry } from './ledger.js';
import { modeOf, walletMetrics } from './metrics.js';
import { appendEntry, lockWalletFor } from './movement.js';
import { check, limits } from './rules.js';
import { announceRefund } from './walletEvents.js';

/** Room for the reason inside the ledger's 1000-character description. */
const reasonLengthMax = 480;

/**
 * Why an order's price goes back:
 * - `provisioning_failed`: the order saga's event (orders.order.provisioning_failed);
 * - `requested`: orders asks through RefundOrder (a cancellation whose bundle
 *   was revoked, a debit that landed after its order was dropped, the
 *   reconciliation releasing a debit without an order).
 */
export type RefundCause = 'provisioning_failed' | 'requested';

export interface RefundInput {
  orderId: string;
  partnerId: string;
  reason: string;
  cause: RefundCause;
  /**
   * `provisioning_failed` of a group order some of whose eSIMs were provisioned (§7): the price of the
   * missing ones, refunded as one entry (reference `missing-units`); the rest is earned (captured).
   */
  amount?: number | undefined;
}

export type RefundOutcome =
  | { kind: 'refunded'; entry: LedgerEntry; replayed: boolean }
  | { kind: 'nothing'; why: 'no_reservation' | 'other_partner' | 'delivered' };

/**
 * The one refund of an order's price, idempotent per order (#23: the event
 * path and the RPC path used to keep rules of their own). In the caller's
 * transaction: the wallet's lock, then the reservation's (Reserve's order,
 * so the two never deadlock); the unique refund-per-order index is the
 * database's last word. One rule table, by the reservation's state:
 *
 * | reservation | provisioning_failed | requested |
 * |---|---|---|
 * | none, or another partner's | nothing (never debited here) | nothing (the caller hears ORDER_NOT_FOUND) |
 * | held | refund; `wallet.order.refunded` tells orders | refund |
 * | captured (the eSIM was delivered) | nothing: a failure after delivery is a bug upstream, logged | refund: the caller revoked the eSIM first |
 * | released | the first refund (replayed) | the first refund (replayed) |
 *
 * A group order (§7) whose provisioning failed for some eSIMs only names the
 * missing units' `amount`: that part is refunded (reference `missing-units`)
 * and the reservation captured; a later cancellation refunds what was paid
 * net of it, as the final refund.
 */
export async function refundOrderPrice(db: Queryable, logger: Logger, input: RefundInput): Promise<RefundOutcome> {
  const known = await findReservation(db, input.orderId);
  if (!known) return { kind: 'nothing', why: 'no_reservation' };
  if (known.partnerId !== input.partnerId) {
    logger.warn({ orderId: input.orderId, askedFor: input.partnerId, partnerId: known.partnerId, cause: input.cause }, 'refund names another partner than the one debited; nothing refunded');
    return { kind: 'nothing', why: 'other_partner' };
  }
  const head = await lockWalletFor(db, known.partnerId, { create: false });
  const reservation = await findReservation(db, input.orderId, { forUpdate: true });
  if (!head || !reservation) throw new Error(`reservation ${input.orderId} lost its wallet`);
  if (reservation.state === 'released') {
    const entry = reservation.refundEntryId ? await findEntry(db, reservation.refundEntryId) : undefined;
    if (!entry) throw new Error(`released reservation ${input.orderId} without its refund entry`);
    return { kind: 'refunded', entry, replayed: true };
  }
  if (reservation.partialRefundEntryId !== null && input.cause === 'provisioning_failed') {
    const entry = await findEntry(db, reservation.partialRefundEntryId);
    if (!entry) throw new Error(`reservation ${input.orderId} without its missing-units refund entry`);
    return { kind: 'refunded', entry, replayed: true };
  }
  if (reservation.state === 'held' && input.cause === 'provisioning_failed' && input.amount !== undefined && input.amount > 0 && input.amount < reservation.amount) {
    const reason = input.reason.slice(0, reasonLengthMax) || 'some eSIMs could not be provisioned';
    const entry = await appendEntry(db, head, { type: 'refund', amount: input.amount, orderId: reservation.orderId, reference: 'missing-units', description: `Refund: ${reason}` });
    await markPartlyRefunded(db, reservation.orderId, entry.id);
    await announceRefund(db, { ...entry, orderId: reservation.orderId });
    walletMetrics.refunds.add(1, modeOf(entry.partnerId));
    walletMetrics.refundedMinor.add(entry.amount, modeOf(entry.partnerId));
    return { kind: 'refunded', entry, replayed: false };
  }
  if (reservation.state === 'captured' && input.cause === 'provisioning_failed') {
    logger.error({ orderId: input.orderId }, 'order reported failed after it was provisioned; not refunded');
    return { kind: 'nothing', why: 'delivered' };
  }
  const reason = input.reason.slice(0, reasonLengthMax) || (input.cause === 'provisioning_failed' ? 'provisioning failed' : 'order cancelled');
  // What was paid net of an earlier refund of a group's missing units (§7).
  const earlier = reservation.partialRefundEntryId ? ((await findEntry(db, reservation.partialRefundEntryId))?.amount ?? 0) : 0;
  const entry = await appendEntry(db, head, { type: 'refund', amount: reservation.amount - earlier, orderId: reservation.orderId, description: `Refund: ${reason}` });
  await markReleased(db, reservation.orderId, entry.id, ['held', 'captured']);
  if (input.cause === 'provisioning_failed') await announceRefund(db, { ...entry, orderId: reservation.orderId });
  walletMetrics.refunds.add(1, modeOf(entry.partnerId));
  walletMetrics.refundedMinor.add(entry.amount, modeOf(entry.partnerId));
  return { kind: 'refunded', entry, replayed: false };
}

export interface Refunded {
  entry: LedgerEntry;
  balanceAfter: number;
  replayed: boolean;
}

/** RefundOrder (orders asks): `refundOrderPrice` with cause `requested` in a transaction of its own; ORDER_NOT_FOUND when nothing was debited for this partner. */
export async function refundRequested(deps: WalletDeps, request: { orderId: string; partnerId: string; reason: string }): Promise<Refunded> {
  check()
    .id('orderId', 'ord', request.orderId)
    .id('partnerId', 'ptn', request.partnerId)
    .text('reason', request.reason, limits.textLength, false)
    .done();
  const logger = deps.logger ?? createLogger('wallet', 'silent');
  const attempt = () => withTransaction(deps.pool, (db) => refundOrderPrice(db, logger, { ...request, cause: 'requested' }));
  let outcome: RefundOutcome;
  try {
    outcome = await attempt();
  } catch (error) {
    // Should the wallet lock ever be bypassed, the unique index refuses a second refund: answer the first.
    if (pgErrorCode(error) !== '23505') throw error;
    outcome = await attempt();
  }
  if (outcome.kind === 'nothing') throw new AppError('ORDER_NOT_FOUND', `No reservation of this partner for order ${request.orderId}.`);
  return { entry: outcome.entry, balanceAfter: outcome.entry.balanceAfter, replayed: outcome.replayed };
}
