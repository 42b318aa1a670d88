import type { Queryable } from '@esim/postgres';
import type { Esim, Order } from '../domain/order.js';
import { columns, one, toOrder, type OrderRow } from './orderRow.js';

/** SQL for a group order's unit orders (orders.orders rows with group_order_id set, contract §7). */

/**
 * The group's unit orders, 'processing' from the start (the group is paid),
 * inserted in the transaction that confirms the group's payment. Each copies
 * the group's plan and customer and costs one unit price; its id is the
 * provisioning job's key. `ids[i]` is unit i's.
 */
export async function insertUnitOrders(db: Queryable, group: Order, ids: string[]): Promise<Order[]> {
  const { rows } = await db.query<OrderRow>(
    `INSERT INTO orders.orders (id, partner_id, client_request_id, fingerprint, plan_id, plan_name, supplier_sku, price, currency, email, phone_number,
       status, kind, iccid, countries, region, data_mb, validity_days, quantity, unit_price, group_order_id, unit, profile_type)
     SELECT unit_id, g.partner_id, g.id || '.' || (ordinality - 1), g.fingerprint, g.plan_id, g.plan_name, g.supplier_sku, g.unit_price, g.currency,
       g.email, g.phone_number, 'processing', 'esim', NULL, g.countries, g.region, g.data_mb, g.validity_days, 1, g.unit_price, g.id, ordinality - 1, g.profile_type
     FROM orders.orders g, unnest($2::text[]) WITH ORDINALITY AS u(unit_id, ordinality)
     WHERE g.id = $1
     ON CONFLICT DO NOTHING
     RETURNING ${columns}`,
    [group.id, ids],
  );
  return rows.map(toOrder).sort((a, b) => (a.unit ?? 0) - (b.unit ?? 0));
}

/** The group's unit orders, in unit order. */
export async function unitOrdersOf(db: Queryable, groupId: string): Promise<Order[]> {
  const { rows } = await db.query<OrderRow>(`SELECT ${columns} FROM orders.orders WHERE group_order_id = $1 ORDER BY unit`, [groupId]);
  return rows.map(toOrder);
}

/** The eSIMs of these groups' unit orders (provisioned, or cancelled with their group), per group, in unit order. */
export async function unitEsimsOf(db: Queryable, groupIds: string[]): Promise<Map<string, Esim[]>> {
  const byGroup = new Map<string, Esim[]>();
  if (groupIds.length === 0) return byGroup;
  const { rows } = await db.query<OrderRow>(
    `SELECT ${columns} FROM orders.orders WHERE group_order_id = ANY($1::text[]) AND iccid IS NOT NULL ORDER BY group_order_id, unit`,
    [groupIds],
  );
  for (const unit of rows.map(toOrder)) {
    if (unit.esim && unit.groupOrderId) byGroup.set(unit.groupOrderId, [...(byGroup.get(unit.groupOrderId) ?? []), unit.esim]);
  }
  return byGroup;
}

/** A unit order that could not be provisioned: 'processing' → 'failed' at once (the group refunds it); undefined when not processing. */
export async function markUnitFailed(db: Queryable, id: string, reason: string): Promise<Order | undefined> {
  const { rows } = await db.query<OrderRow>(
    `UPDATE orders.orders SET status = 'failed', failure_reason = $2, updated_at = now()
     WHERE id = $1 AND status = 'processing' AND group_order_id IS NOT NULL RETURNING ${columns}`,
    [id, reason],
  );
  return one(rows);
}

/**
 * A group some of whose units failed: 'processing' → 'partially_provisioned'
 * with its first eSIM and the refund of the missing units.
 */
export async function markPartiallyProvisioned(db: Queryable, id: string, first: Order, refundedAmount: number): Promise<Order | undefined> {
  const esim = first.esim;
  if (!esim) throw new Error(`unit order ${first.id} has no eSIM`);
  const { rows } = await db.query<OrderRow>(
    `UPDATE orders.orders
     SET status = 'partially_provisioned', iccid = $2, smdp_address = $3, matching_id = $4, activation_code = $5, qr_code = $6,
         supplier_reference = $7, refunded_amount = $8, provisioned_at = now(), updated_at = now()
     WHERE id = $1 AND status = 'processing'
     RETURNING ${columns}`,
    [id, esim.iccid, esim.smdpAddress, esim.matchingId, esim.activationCode, esim.qrCode, first.supplierReference, refundedAmount],
  );
  return one(rows);
}
