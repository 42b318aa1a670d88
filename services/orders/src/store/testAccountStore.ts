import { testAccountSqlPattern } from '@esim/ids';
import type { Queryable } from '@esim/postgres';

/** How long a wiped in-flight test order is remembered: far beyond any provisioning retry or redelivery. */
const wipedRetentionDays = 7;

export interface DeletedRows {
  orders: number;
  esims: number;
  bundles: number;
  supplierNotifications: number;
  reconciliationFindings: number;
}

/**
 * Deletes every row of one test account (contract §14) in the caller's
 * transaction, children first: the supplier's notifications about its eSIMs
 * or orders (keyed by ICCID and order reference, not by partner), bundles,
 * eSIMs, then its orders with their group units (one statement, so a unit's
 * key to its group is checked once both are gone), and the findings a
 * reconciliation wrote about it. Every statement also requires the test
 * pattern, so a live id deletes nothing even if a caller erred.
 */
export async function deleteTestAccountRows(db: Queryable, accountId: string): Promise<DeletedRows> {
  const scoped = [accountId, testAccountSqlPattern];
  const ownOrders = 'SELECT id FROM orders.orders WHERE partner_id = $1 AND partner_id LIKE $2';
  // Orders still in flight may hear from provisioning or the wallet later: remembered for a week (wasWipedTestOrder).
  await db.query(`DELETE FROM orders.wiped_test_orders WHERE wiped_at < now() - interval '${wipedRetentionDays} days'`);
  await db.query(
    `INSERT INTO orders.wiped_test_orders (order_id) SELECT id FROM orders.orders
     WHERE partner_id = $1 AND partner_id LIKE $2 AND (status IN ('pending', 'processing') OR cancel_requested_at IS NOT NULL)
     ON CONFLICT (order_id) DO NOTHING`,
    scoped,
  );
  const ownEsims = 'SELECT iccid FROM orders.esims WHERE partner_id = $1 AND partner_id LIKE $2';
  const notifications = await db.query(`DELETE FROM orders.supplier_notifications WHERE iccid IN (${ownEsims}) OR reference IN (${ownOrders})`, scoped);
  const bundles = await db.query(`DELETE FROM orders.bundles WHERE iccid IN (${ownEsims}) OR order_id IN (${ownOrders})`, scoped);
  const esims = await db.query('DELETE FROM orders.esims WHERE partner_id = $1 AND partner_id LIKE $2', scoped);
  const orders = await db.query('DELETE FROM orders.orders WHERE partner_id = $1 AND partner_id LIKE $2', scoped);
  const findings = await db.query('DELETE FROM orders.reconciliation_findings WHERE partner_id = $1 AND partner_id LIKE $2', scoped);
  return {
    orders: orders.rowCount ?? 0,
    esims: esims.rowCount ?? 0,
    bundles: bundles.rowCount ?? 0,
    supplierNotifications: notifications.rowCount ?? 0,
    reconciliationFindings: findings.rowCount ?? 0,
  };
}

/** True when `orderId` was a test order wiped while in flight: a late event about it is expected, not an error. */
export async function wasWipedTestOrder(db: Queryable, orderId: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM orders.wiped_test_orders WHERE order_id = $1', [orderId]);
  return rows.length > 0;
}
