import type { RetentionRule } from '@esim/service';

/** Applied supplier notifications are kept this long: long past any redelivery of one (a duplicate is known by its id). */
export const notificationRetentionDays = 30;
/** Reconciliation runs (and their findings) are kept this long, past a financial year's close; the latest ten always stay. */
export const reconciliationRetentionDays = 400;

/**
 * The orders schema's retention (contract §11, docs/retention.md). Orders,
 * eSIMs and bundles are the partner's records (and an order's
 * clientRequestId is its idempotency key, unique forever, §7): never pruned.
 */
export const ordersRetention: readonly RetentionRule[] = [
  {
    // An unapplied notification waits for its eSIM and is never deleted here.
    table: 'orders.supplier_notifications',
    async prune(db, batch) {
      const { rowCount } = await db.query(
        `DELETE FROM orders.supplier_notifications WHERE id IN (
           SELECT id FROM orders.supplier_notifications
           WHERE applied_at IS NOT NULL AND received_at < now() - $1 * interval '1 day'
           ORDER BY received_at LIMIT $2)`,
        [notificationRetentionDays, batch],
      );
      return rowCount ?? 0;
    },
  },
  {
    // A run still under way (finished_at null) is never deleted; its findings go with it (ON DELETE CASCADE).
    table: 'orders.reconciliation_runs',
    async prune(db, batch) {
      const { rowCount } = await db.query(
        `DELETE FROM orders.reconciliation_runs WHERE id IN (
           SELECT id FROM orders.reconciliation_runs
           WHERE finished_at IS NOT NULL AND started_at < now() - $1 * interval '1 day'
             AND id NOT IN (SELECT id FROM orders.reconciliation_runs ORDER BY started_at DESC, id DESC LIMIT 10)
           ORDER BY started_at LIMIT $2)`,
        [reconciliationRetentionDays, batch],
      );
      return rowCount ?? 0;
    },
  },
];
