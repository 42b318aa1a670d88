import { AppError } from '@esim/errors';
import type { Queryable } from '@esim/postgres';
import { findReservation } from '../store/reservationStore.js';
import type { Reservation } from './ledger.js';

/** The reservation of an order (the orders sweeper asks after a crash whether an order was paid). */
export async function getReservation(db: Queryable, orderId: string): Promise<Reservation> {
  const reservation = orderId === '' ? undefined : await findReservation(db, orderId);
  if (!reservation) throw new AppError('NOT_FOUND', `No reservation for order ${orderId}.`);
  return reservation;
}
