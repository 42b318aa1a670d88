import type { Queryable } from '@esim/postgres';
import type { Order } from '../domain/order.js';
import { columns, one, toOrder, type OrderRow } from './orderRow.js';

/** SQL for the cancellation's columns of orders.orders (contract §13). */

/** Marks a provisioned order's cancellation under way; undefined when it was not provisioned or already marked. */
export async function markCancelRequested(db: Queryable, id: string): Promise<Order | undefined> {
  const { rows } = await db.query<OrderRow>(
    `UPDATE orders.orders SET cancel_requested_at = now(), updated_at = now()
     WHERE id = $1 AND status IN ('provisioned', 'partially_provisioned') AND cancel_requested_at IS NULL RETURNING ${columns}`,
    [id],
  );
  return one(rows);
}

/** Nothing changed after all (the supplier refused or could not be reached): the order is as it was. */
export async function clearCancelRequested(db: Queryable, id: string): Promise<void> {
  await db.query(`UPDATE orders.orders SET cancel_requested_at = NULL WHERE id = $1 AND status IN ('provisioned', 'partially_provisioned')`, [id]);
}

/** provisioned → cancelled with the refunded amount; undefined when the order was not provisioned. */
export async function markCancelled(db: Queryable, id: string, refundedAmount: number): Promise<Order | undefined> {
  const { rows } = await db.query<OrderRow>(
    `UPDATE orders.orders SET status = 'cancelled', cancelled_at = now(), refunded_amount = $2, updated_at = now()
     WHERE id = $1 AND status IN ('provisioned', 'partially_provisioned') RETURNING ${columns}`,
    [id, refundedAmount],
  );
  return one(rows);
}

/** The eSIM's top-ups that still count against cancelling its first order: pending, processing or provisioned. */
export async function openTopUpIds(db: Queryable, iccid: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM orders.orders WHERE iccid = $1 AND kind = 'topup' AND status IN ('pending', 'processing', 'provisioned') ORDER BY created_at, id`,
    [iccid],
  );
  return rows.map((row) => row.id);
}

/** Cancellations under way for longer than `olderThanMs`: a crash, or an outage, left them half done. */
export async function staleCancellations(db: Queryable, olderThanMs: number, limit: number): Promise<Order[]> {
  const { rows } = await db.query<OrderRow>(
    `SELECT ${columns} FROM orders.orders
     WHERE status IN ('provisioned', 'partially_provisioned') AND cancel_requested_at < now() - make_interval(secs => $1::double precision / 1000)
     ORDER BY cancel_requested_at, id LIMIT $2`,
    [olderThanMs, limit],
  );
  return rows.map(toOrder);
}
