import { randomBytes } from 'node:crypto';
import type { Queryable } from '@esim/postgres';

/** SQL for provisioning.smdp_orders; nothing outside src/store writes SQL against it. */

export type SmdpOrderState = 'ordering' | 'downloaded' | 'released' | 'cancelled';

export interface SmdpOrder {
  orderId: string;
  profileType: string;
  downloadCallId: string;
  confirmCallId: string;
  cancelCallId: string;
  iccid: string | null;
  matchingId: string | null;
  smdpAddress: string | null;
  eid: string | null;
  state: SmdpOrderState;
}

interface Row {
  order_id: string;
  profile_type: string;
  download_call_id: string;
  confirm_call_id: string;
  cancel_call_id: string;
  iccid: string | null;
  matching_id: string | null;
  smdp_address: string | null;
  eid: string | null;
  state: SmdpOrderState;
}

const toOrder = (row: Row): SmdpOrder => ({
  orderId: row.order_id,
  profileType: row.profile_type,
  downloadCallId: row.download_call_id,
  confirmCallId: row.confirm_call_id,
  cancelCallId: row.cancel_call_id,
  iccid: row.iccid,
  matchingId: row.matching_id,
  smdpAddress: row.smdp_address,
  eid: row.eid,
  state: row.state,
});

/** A functionCallIdentifier: unique per call (SGP.22 lets the caller choose it), 26 hex characters after the function's initial. */
const callId = (fn: string) => `${fn}-${randomBytes(13).toString('hex')}`;

/** The order's row, created with fresh call ids the first time; later attempts get the same ids back. */
export async function openSmdpOrder(db: Queryable, orderId: string, profileType: string, accountId: string): Promise<SmdpOrder> {
  await db.query(
    `INSERT INTO provisioning.smdp_orders (order_id, profile_type, download_call_id, confirm_call_id, cancel_call_id, account_id)
     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (order_id) DO NOTHING`,
    [orderId, profileType, callId('do'), callId('co'), callId('ca'), accountId],
  );
  const found = await findSmdpOrder(db, orderId);
  if (!found) throw new Error(`smdp_orders row for ${orderId} vanished`);
  return found;
}

export async function findSmdpOrder(db: Queryable, orderId: string): Promise<SmdpOrder | undefined> {
  const { rows } = await db.query<Row>('SELECT * FROM provisioning.smdp_orders WHERE order_id = $1', [orderId]);
  return rows[0] ? toOrder(rows[0]) : undefined;
}

/** The released order of an ICCID (its activation code), for top-ups and GetProvisioning. */
export async function findReleasedByIccid(db: Queryable, iccid: string): Promise<SmdpOrder | undefined> {
  const { rows } = await db.query<Row>(
    `SELECT * FROM provisioning.smdp_orders WHERE iccid = $1 AND state = 'released' ORDER BY created_at LIMIT 1`,
    [iccid],
  );
  return rows[0] ? toOrder(rows[0]) : undefined;
}

export async function markDownloaded(db: Queryable, orderId: string, iccid: string): Promise<void> {
  await db.query(
    `UPDATE provisioning.smdp_orders SET iccid = $2, state = 'downloaded', updated_at = now() WHERE order_id = $1 AND state = 'ordering'`,
    [orderId, iccid],
  );
}

export async function markReleased(db: Queryable, orderId: string, answer: { matchingId: string; smdpAddress: string; eid: string | null }): Promise<void> {
  await db.query(
    `UPDATE provisioning.smdp_orders SET matching_id = $2, smdp_address = $3, eid = COALESCE($4, eid), state = 'released', updated_at = now()
     WHERE order_id = $1 AND state = 'downloaded'`,
    [orderId, answer.matchingId, answer.smdpAddress, answer.eid],
  );
}

export async function markCancelled(db: Queryable, orderId: string): Promise<void> {
  await db.query(`UPDATE provisioning.smdp_orders SET state = 'cancelled', updated_at = now() WHERE order_id = $1`, [orderId]);
}
