import type { EventEnvelope } from '@esim/events';
import type { PoolClient } from '@esim/postgres';
import type { Logger } from '@esim/telemetry';
import type { EsimNotificationType } from '@esim/vocabulary';
import { supplierNotifications } from '../domain/metrics.js';
import { applyNotification, type SupplierNotification } from './notification.js';
import { findEsimState, lockEsimKey } from '../store/esimStore.js';
import { insertNotification, markApplied } from '../store/notificationStore.js';

const typeOf: Record<EventEnvelope<'provisioning.esim.progress'>['data']['effect'], EsimNotificationType> = {
  installed: 'esim.installed',
  install_failed: 'esim.install_failed',
  deleted: 'esim.deleted',
  none: 'esim.progress',
};

/**
 * The consumer of `provisioning.esim.progress` (the SM-DP+'s ES2+
 * HandleDownloadProgressInfo, recorded by provisioning): the report joins
 * the eSIM's other reports in supplier_notifications (its notification id
 * is the dedupe key) and is applied in the consumer's exactly-once
 * transaction under the eSIM's lock, as a connectivity provider's
 * notification is. An installation applies once whichever upstream reports
 * it first; a report for an eSIM not recorded yet waits and is applied when
 * the eSIM is (recordEsim).
 */
export function recordSmdpReport(logger: Logger) {
  return async (event: EventEnvelope<'provisioning.esim.progress'>, db: PoolClient): Promise<void> => {
    const data = event.data;
    const notification: SupplierNotification = {
      id: data.notificationId,
      type: typeOf[data.effect],
      iccid: data.iccid,
      reference: null,
      dataUsedMb: null,
      occurredAt: new Date(data.occurredAt),
      eid: data.eid,
      notificationPoint: data.notificationPoint,
      reasonCode: data.reasonCode,
      message: data.message,
    };
    await lockEsimKey(db, notification.iccid);
    if (!(await insertNotification(db, notification))) {
      supplierNotifications.add(1, { type: notification.type, outcome: 'duplicate' });
      return;
    }
    const applied = await applyNotification(db, await findEsimState(db, notification.iccid), notification);
    supplierNotifications.add(1, { type: notification.type, outcome: applied ? 'applied' : 'waiting' });
    if (applied) await markApplied(db, notification.id);
    else logger.info({ notificationId: notification.id, type: notification.type, iccid: notification.iccid }, 'SM-DP+ report kept until its eSIM is provisioned');
  };
}
