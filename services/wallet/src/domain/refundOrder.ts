import type { Queryable } from '@esim/postgres';
import type { Logger } from '@esim/telemetry';
import { findReservation, markPartlyRefunded, markReleased } from '../store/reservationStore.js';
import { walletMetrics } from './metrics.js';
import { appendEntry, lockWalletFor } from './movement.js';
import { announceRefund } from './walletEvents.js';

/** Room for the reason inside the ledger's 1000-character description. */
const reasonLengthMax = 480;

/**
 * Provisioning failed for good: the order's price goes back to the partner
 * as a `refund` entry, the reservation is released, and the orders service
 * is told (`wallet.order.refunded`), all in the consumer's exactly-once
 * transaction. Guarantee: at most one refund per order, whatever the
 * redeliveries or duplicate events: refunds of one partner queue on the
 * wallet lock, a released reservation is never refunded again, and the
 * unique refund-per-order index is the database's last word. An order with
 * no reservation was never debited, so there is nothing to give back.
 */
export async function refundOrder(db: Queryable, logger: Logger, event: { orderId: string; partnerId: string; reason: string; amount?: number | undefined }): Promise<void> {
  const known = await findReservation(db, event.orderId);
  if (!known) {
    logger.warn({ orderId: event.orderId }, 'failed order has no reservation; nothing was debited, nothing to refund');
    return;
  }
  if (known.partnerId !== event.partnerId) {
    logger.warn({ orderId: event.orderId, eventPartnerId: event.partnerId, partnerId: known.partnerId }, 'refund event names another partner; refunding the one debited');
  }
  // Wallet first, then the reservation: the same lock order as Reserve, so the two never deadlock.
  const head = await lockWalletFor(db, known.partnerId, { create: false });
  const reservation = await findReservation(db, event.orderId, { forUpdate: true });
  if (!head || !reservation) throw new Error(`reservation ${event.orderId} lost its wallet`);
  if (reservation.state === 'released' || reservation.partialRefundEntryId !== null) return;
  if (reservation.state === 'captured') {
    logger.error({ orderId: event.orderId }, 'order reported failed after it was provisioned; not refunded');
    return;
  }
  // A group order some of whose eSIMs were provisioned: only the missing ones go back, and the rest is earned.
  const partial = event.amount !== undefined && event.amount < reservation.amount;
  const entry = await appendEntry(db, head, {
    type: 'refund',
    amount: partial ? (event.amount as number) : reservation.amount,
    orderId: reservation.orderId,
    ...(partial ? { reference: 'missing-units' } : {}),
    description: `Refund: ${event.reason.slice(0, reasonLengthMax)}`,
  });
  if (partial) await markPartlyRefunded(db, reservation.orderId, entry.id);
  else await markReleased(db, reservation.orderId, entry.id);
  await announceRefund(db, { ...entry, orderId: reservation.orderId });
  walletMetrics.refunds.add(1);
  walletMetrics.refundedMinor.add(entry.amount);
}
