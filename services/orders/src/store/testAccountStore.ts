import { testAccountSqlPattern } from '@esim/ids';
import type { Queryable } from '@esim/postgres';

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
