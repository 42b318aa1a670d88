import { randomBytes } from 'node:crypto';
import { enqueueEvent } from '@esim/events';
import { notificationPoints, type DownloadProgressInfo } from '@esim/es2plus';
import { withTransaction, type Pool } from '@esim/postgres';
import { metrics, type Logger } from '@esim/telemetry';
import { insertEs2Notification } from '../store/es2Notifications.js';

const received = metrics.getMeter('provisioning').createCounter('provisioning_es2_notifications_total', {
  description: 'ES2+ HandleDownloadProgressInfo calls accepted, by effect and outcome',
});

export type ProgressEffect = 'installed' | 'install_failed' | 'deleted' | 'none';

/**
 * What a notification point means for the eSIM (contract §8): point 4
 * (BPP installation) executed → installed; points 2–4 Failed → a failed
 * download or installation; point 5 executed → the profile was deleted
 * from the device. Everything else (eligibility checks, successes before
 * installation, Expired, unknown points) changes no state; its EID is
 * still recorded.
 */
export function effectOf(point: number, status: string): ProgressEffect {
  const succeeded = status === 'Executed-Success' || status === 'Executed-WithWarning';
  if (point === notificationPoints.bppInstallation && succeeded) return 'installed';
  if (point >= notificationPoints.confirmation && point <= notificationPoints.bppInstallation && status === 'Failed') return 'install_failed';
  if (point === notificationPoints.deletion && succeeded) return 'deleted';
  return 'none';
}

/**
 * Records one HandleDownloadProgressInfo the SM-DP+ sent (already validated
 * against SGP.22's schema and authenticated): the row and the
 * `provisioning.esim.progress` event commit together, so the 204 that
 * follows means the notification is durable and will reach the eSIM's
 * lifecycle in the orders service (which keeps it until the eSIM is
 * recorded there). The same (requester, functionCallIdentifier) again is a
 * duplicate: answered the same, recorded and published once.
 */
export async function recordProgress(deps: { pool: Pool; schema: string; logger: Logger }, info: DownloadProgressInfo): Promise<{ duplicate: boolean }> {
  const { status, statusCodeData } = info.notificationPointStatus;
  const effect = effectOf(info.notificationPointId, status);
  const id = `es2_${randomBytes(12).toString('hex')}`;
  const occurredAt = new Date(info.timestamp);
  return withTransaction(deps.pool, async (db) => {
    const inserted = await insertEs2Notification(db, {
      id,
      requesterId: info.header.functionRequesterIdentifier,
      callId: info.header.functionCallIdentifier,
      iccid: info.iccid,
      eid: info.eid ?? null,
      profileType: info.profileType,
      notificationPoint: info.notificationPointId,
      status,
      subjectCode: statusCodeData?.subjectCode ?? null,
      reasonCode: statusCodeData?.reasonCode ?? null,
      message: statusCodeData?.message ?? null,
      occurredAt,
    });
    if (!inserted) {
      received.add(1, { effect, outcome: 'duplicate' });
      return { duplicate: true };
    }
    await enqueueEvent(db, deps.schema, 'provisioning.esim.progress', {
      notificationId: id,
      iccid: info.iccid,
      eid: info.eid ?? null,
      effect,
      notificationPoint: info.notificationPointId,
      status,
      reasonCode: statusCodeData?.reasonCode ?? null,
      message: statusCodeData?.message ?? null,
      occurredAt: occurredAt.toISOString(),
    });
    received.add(1, { effect, outcome: 'recorded' });
    deps.logger.info({ iccid: info.iccid, point: info.notificationPointId, status, effect }, 'ES2+ download progress recorded');
    return { duplicate: false };
  });
}
