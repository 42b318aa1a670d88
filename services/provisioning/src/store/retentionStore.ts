import type { RetentionRule } from '@esim/service';

/** ES2+ progress notifications are kept this long: an SM-DP+ retries a call for minutes, operators look back a month. */
export const es2NotificationRetentionDays = 30;
/**
 * A finished supplier call is kept this long: GetProvisioning reads it when
 * the orders service lost the result event, which a dead letter (kept 30
 * days) brings back at the latest; operators look back a quarter.
 */
export const supplierCallRetentionDays = 90;

/**
 * The provisioning schema's retention (contract §11, docs/retention.md).
 * smdp_orders are kept for the eSIM's life (its cancel call id and matching
 * id have no other copy, ES2+ cannot read them again): one row per eSIM,
 * read by key only.
 */
export const provisioningRetention: readonly RetentionRule[] = [
  {
    table: 'provisioning.es2_notifications',
    async prune(db, batch) {
      const { rowCount } = await db.query(
        `DELETE FROM provisioning.es2_notifications WHERE id IN (
           SELECT id FROM provisioning.es2_notifications WHERE received_at < now() - $1 * interval '1 day' ORDER BY received_at LIMIT $2)`,
        [es2NotificationRetentionDays, batch],
      );
      return rowCount ?? 0;
    },
  },
  {
    // A pending call (still retried) is never deleted, however old.
    table: 'provisioning.supplier_calls',
    async prune(db, batch) {
      const { rowCount } = await db.query(
        `DELETE FROM provisioning.supplier_calls WHERE order_id IN (
           SELECT order_id FROM provisioning.supplier_calls
           WHERE state <> 'pending' AND updated_at < now() - $1 * interval '1 day' ORDER BY updated_at LIMIT $2)`,
        [supplierCallRetentionDays, batch],
      );
      return rowCount ?? 0;
    },
  },
];
