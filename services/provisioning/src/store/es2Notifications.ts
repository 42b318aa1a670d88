import type { Queryable } from '@esim/postgres';

/** SQL for provisioning.es2_notifications. */
export interface Es2NotificationRecord {
  id: string;
  requesterId: string;
  callId: string;
  iccid: string;
  eid: string | null;
  profileType: string;
  notificationPoint: number;
  status: string;
  subjectCode: string | null;
  reasonCode: string | null;
  message: string | null;
  occurredAt: Date;
}

/** Records the call; false when (requester, call id) was recorded before. */
export async function insertEs2Notification(db: Queryable, n: Es2NotificationRecord): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO provisioning.es2_notifications (id, requester_id, call_id, iccid, eid, profile_type, notification_point, status,
       subject_code, reason_code, message, occurred_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
     ON CONFLICT (requester_id, call_id) DO NOTHING`,
    [n.id, n.requesterId, n.callId, n.iccid, n.eid, n.profileType, n.notificationPoint, n.status, n.subjectCode, n.reasonCode, n.message, n.occurredAt],
  );
  return rowCount === 1;
}
