import type { Queryable } from '@esim/postgres';
import type { Logger } from '@esim/telemetry';
import { findReservation, markCaptured } from '../store/reservationStore.js';

/**
 * The order was provisioned: its held price is now earned (held → captured).
 * Runs in the consumer's exactly-once transaction; a second event for the
 * same order finds it captured and changes nothing.
 */
export async function captureReservation(db: Queryable, logger: Logger, event: { orderId: string }): Promise<void> {
  const reservation = await findReservation(db, event.orderId, { forUpdate: true });
  if (!reservation) {
    logger.warn({ orderId: event.orderId }, 'provisioned order has no reservation; nothing to capture');
    return;
  }
  if (reservation.state === 'held') await markCaptured(db, event.orderId);
  // The refund stands: money is never taken back without an operator. A cancellation refunded before this
  // event arrived (RefundOrder releases a held reservation too) lands here, and is expected.
  else if (reservation.state === 'released') logger.warn({ orderId: event.orderId }, 'order reported provisioned after its price was refunded (cancelled, or failed); the refund stands');
}
