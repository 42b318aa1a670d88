import { testAccountSqlPattern } from '@esim/ids';
import type { Queryable } from '@esim/postgres';
import type { ReservationState } from '@esim/vocabulary';
import type { Reservation } from '../domain/ledger.js';

/** SQL for wallet.reservations. */
const columns = 'order_id, partner_id, amount, state, debit_entry_id, refund_entry_id, partial_refund_entry_id, created_at, updated_at';

interface ReservationRow {
  order_id: string;
  partner_id: string;
  amount: number;
  state: ReservationState;
  debit_entry_id: string;
  refund_entry_id: string | null;
  partial_refund_entry_id: string | null;
  created_at: Date;
  updated_at: Date;
}

function toReservation(row: ReservationRow): Reservation {
  return {
    orderId: row.order_id,
    partnerId: row.partner_id,
    amount: row.amount,
    state: row.state,
    debitEntryId: row.debit_entry_id,
    refundEntryId: row.refund_entry_id,
    partialRefundEntryId: row.partial_refund_entry_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export async function findReservation(db: Queryable, orderId: string, options: { forUpdate?: boolean } = {}): Promise<Reservation | undefined> {
  const { rows } = await db.query<ReservationRow>(
    `SELECT ${columns} FROM wallet.reservations WHERE order_id = $1${options.forUpdate ? ' FOR UPDATE' : ''}`,
    [orderId],
  );
  return rows[0] ? toReservation(rows[0]) : undefined;
}

export async function insertReservation(db: Queryable, reservation: { orderId: string; partnerId: string; amount: number; debitEntryId: string }): Promise<void> {
  await db.query(`INSERT INTO wallet.reservations (order_id, partner_id, amount, state, debit_entry_id) VALUES ($1, $2, $3, 'held', $4)`, [
    reservation.orderId,
    reservation.partnerId,
    reservation.amount,
    reservation.debitEntryId,
  ]);
}

export async function markCaptured(db: Queryable, orderId: string): Promise<void> {
  const result = await db.query(`UPDATE wallet.reservations SET state = 'captured', updated_at = now() WHERE order_id = $1 AND state = 'held'`, [orderId]);
  if (result.rowCount !== 1) throw new Error(`reservation ${orderId} was not held`);
}

/** held (a failed order) or, for a cancellation, held or captured → released with its refund entry. */
export async function markReleased(db: Queryable, orderId: string, refundEntryId: string, from: ReservationState[] = ['held']): Promise<void> {
  const result = await db.query(
    `UPDATE wallet.reservations SET state = 'released', refund_entry_id = $2, updated_at = now() WHERE order_id = $1 AND state = ANY($3::text[])`,
    [orderId, refundEntryId, from],
  );
  if (result.rowCount !== 1) throw new Error(`reservation ${orderId} was not ${from.join(' or ')}`);
}

/** Live reservations still 'held' after `olderThanMs` (the reconciliation's "a debit without its order?"), oldest first; test accounts' are not reconciled. */
export async function heldReservationsOlderThan(db: Queryable, olderThanMs: number, limit: number): Promise<Reservation[]> {
  const { rows } = await db.query<ReservationRow>(
    `SELECT ${columns} FROM wallet.reservations
     WHERE state = 'held' AND created_at < now() - make_interval(secs => $1::double precision / 1000) AND partner_id NOT LIKE $3
     ORDER BY created_at, order_id LIMIT $2`,
    [olderThanMs, limit, testAccountSqlPattern],
  );
  return rows.map(toReservation);
}

/** The reservations of the orders named (none for an order never debited). */
export async function reservationsOf(db: Queryable, orderIds: string[]): Promise<Reservation[]> {
  const { rows } = await db.query<ReservationRow>(`SELECT ${columns} FROM wallet.reservations WHERE order_id = ANY($1::text[])`, [orderIds]);
  return rows.map(toReservation);
}

/** held → captured, with the refund of a group order's missing units (contract §7). */
export async function markPartlyRefunded(db: Queryable, orderId: string, partialRefundEntryId: string): Promise<void> {
  const result = await db.query(
    `UPDATE wallet.reservations SET state = 'captured', partial_refund_entry_id = $2, updated_at = now() WHERE order_id = $1 AND state = 'held'`,
    [orderId, partialRefundEntryId],
  );
  if (result.rowCount !== 1) throw new Error(`reservation ${orderId} was not held`);
}
