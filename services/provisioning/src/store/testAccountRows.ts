import type { Queryable } from '@esim/postgres';

/**
 * SQL that wipes one test account's rows (contract §14 test-data deletion):
 * the ES2+ notifications of its eSIMs' ICCIDs, its SM-DP+ orders and its
 * supplier-call records. Keyed by the account id each row was written with;
 * the caller has already checked the id names a test account, and the WHERE
 * clauses name it exactly, so a live row cannot match.
 */
export async function deleteAccountRows(db: Queryable, accountId: string): Promise<{ supplierCalls: number; smdpOrders: number; es2Notifications: number }> {
  const notifications = await db.query(
    `DELETE FROM provisioning.es2_notifications
     WHERE iccid IN (SELECT iccid FROM provisioning.smdp_orders WHERE account_id = $1 AND iccid IS NOT NULL)`,
    [accountId],
  );
  const smdp = await db.query('DELETE FROM provisioning.smdp_orders WHERE account_id = $1', [accountId]);
  const calls = await db.query('DELETE FROM provisioning.supplier_calls WHERE account_id = $1', [accountId]);
  return { supplierCalls: calls.rowCount ?? 0, smdpOrders: smdp.rowCount ?? 0, es2Notifications: notifications.rowCount ?? 0 };
}
