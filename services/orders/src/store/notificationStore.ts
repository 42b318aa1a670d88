import type { Queryable } from '@esim/postgres';
import type { SupplierNotification } from '../esims/notification.js';

/** SQL for orders.supplier_notifications. */

interface NotificationRow {
  id: string;
  type: SupplierNotification['type'];
  iccid: string;
  reference: string | null;
  data_used_mb: number | null;
  occurred_at: Date;
  eid: string | null;
  notification_point: number | null;
  reason_code: string | null;
  message: string | null;
}

const toNotification = (row: NotificationRow): SupplierNotification => ({
  id: row.id,
  type: row.type,
  iccid: row.iccid,
  reference: row.reference,
  dataUsedMb: row.data_used_mb,
  occurredAt: row.occurred_at,
  eid: row.eid,
  notificationPoint: row.notification_point,
  reasonCode: row.reason_code,
  message: row.message,
});

/** Records a notification; false when its id was recorded before (a duplicate delivery). */
export async function insertNotification(db: Queryable, notification: SupplierNotification): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO orders.supplier_notifications (id, type, iccid, reference, data_used_mb, occurred_at, eid, notification_point, reason_code, message)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     ON CONFLICT (id) DO NOTHING`,
    [
      notification.id,
      notification.type,
      notification.iccid,
      notification.reference,
      notification.dataUsedMb,
      notification.occurredAt,
      notification.eid ?? null,
      notification.notificationPoint ?? null,
      notification.reasonCode ?? null,
      notification.message ?? null,
    ],
  );
  return rowCount === 1;
}

export async function markApplied(db: Queryable, id: string): Promise<void> {
  await db.query(`UPDATE orders.supplier_notifications SET applied_at = now() WHERE id = $1`, [id]);
}

/** The eSIM's notifications not applied yet, in the order they happened. */
export async function unappliedFor(db: Queryable, iccid: string): Promise<SupplierNotification[]> {
  const { rows } = await db.query<NotificationRow>(
    `SELECT id, type, iccid, reference, data_used_mb, occurred_at, eid, notification_point, reason_code, message FROM orders.supplier_notifications
     WHERE iccid = $1 AND applied_at IS NULL ORDER BY occurred_at, received_at, id`,
    [iccid],
  );
  return rows.map(toNotification);
}
