import { validationError, type FieldError } from '@esim/errors';
import { isId } from '@esim/ids';
import { withTransaction, type Pool } from '@esim/postgres';
import type { Logger } from '@esim/telemetry';
import { isOneOf, supplierNotificationTypes } from '@esim/vocabulary';
import { findEsimState, lockEsimKey } from '../store/esimStore.js';
import { insertNotification, markApplied } from '../store/notificationStore.js';
import { iccidPattern } from './esim.js';
import { supplierNotifications } from '../domain/metrics.js';
import { applyNotification, type SupplierNotification } from './notification.js';

export interface NotificationInput {
  id: string;
  type: string;
  occurredAt: string;
  iccid: string;
  reference?: string;
  dataUsedMb?: number;
}

/**
 * The gateway has verified the supplier's signature: the notification is
 * recorded (its id is the dedupe key) and applied in the same transaction,
 * under the eSIM's lock, so notifications of one eSIM apply one at a time
 * and each exactly once. `duplicate` when the id was recorded before:
 * nothing is applied again. One not applicable yet (eSIM or bundle unknown)
 * is recorded all the same and applied when provisioning records them.
 */
export async function recordSupplierNotification(deps: { pool: Pool; logger: Logger }, input: NotificationInput): Promise<{ duplicate: boolean }> {
  const notification = checkNotification(input);
  return withTransaction(deps.pool, async (db) => {
    await lockEsimKey(db, notification.iccid);
    if (!(await insertNotification(db, notification))) {
      supplierNotifications.add(1, { type: notification.type, outcome: 'duplicate' });
      return { duplicate: true };
    }
    const applied = await applyNotification(db, await findEsimState(db, notification.iccid), notification);
    supplierNotifications.add(1, { type: notification.type, outcome: applied ? 'applied' : 'waiting' });
    if (applied) await markApplied(db, notification.id);
    else deps.logger.info({ notificationId: notification.id, type: notification.type, iccid: notification.iccid }, 'supplier notification kept until its eSIM or bundle is provisioned');
    return { duplicate: false };
  });
}

const idPattern = /^[\x21-\x7e]{1,100}$/;

/** The gateway validates the body; these checks keep the table's constraints from ever being the ones to refuse (a 500). */
function checkNotification(input: NotificationInput): SupplierNotification {
  const errors: FieldError[] = [];
  if (!idPattern.test(input.id)) errors.push({ path: 'id', message: 'must be 1–100 printable characters' });
  if (!isOneOf(supplierNotificationTypes, input.type)) errors.push({ path: 'type', message: `must be one of ${supplierNotificationTypes.join(', ')}` });
  const occurredAt = new Date(input.occurredAt);
  if (input.occurredAt === '' || Number.isNaN(occurredAt.getTime())) errors.push({ path: 'occurredAt', message: 'must be an ISO 8601 timestamp' });
  if (!iccidPattern.test(input.iccid)) errors.push({ path: 'iccid', message: 'must be 18–22 digits' });
  const needsReference = input.type === 'bundle.usage' || input.type === 'bundle.expired';
  if (needsReference && (input.reference === undefined || !isId('ord', input.reference))) {
    errors.push({ path: 'reference', message: 'must be the bundle\'s order id (ord_…)' });
  }
  if (input.type === 'bundle.usage' && (input.dataUsedMb === undefined || !Number.isInteger(input.dataUsedMb) || input.dataUsedMb < 0)) {
    errors.push({ path: 'dataUsedMb', message: 'must be a non-negative integer' });
  }
  if (errors.length > 0) throw validationError(errors);
  return {
    id: input.id,
    type: input.type as SupplierNotification['type'],
    iccid: input.iccid,
    reference: needsReference ? (input.reference ?? null) : null,
    dataUsedMb: input.type === 'bundle.usage' ? (input.dataUsedMb ?? null) : null,
    occurredAt,
  };
}
