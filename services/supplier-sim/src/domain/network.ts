import { randomBytes } from 'node:crypto';
import type { SimBundle, SimEsim, SupplierNotification } from './state.js';

const dayMs = 86_400_000;

const notificationId = () => `ntf_${randomBytes(12).toString('hex')}`;

/**
 * What happens on the mobile network, as the supplier sees it and reports
 * it (contract §13). Each function changes the eSIM in place and returns
 * the notifications it gives rise to, in the order they happened; nothing
 * here sends them. A revoked eSIM's profile is gone: nothing happens on it.
 */

/** The profile is downloaded to a device; only the first time is news (the connectivity side's first attach). */
export function install(esim: SimEsim, now: Date): SupplierNotification[] {
  if (esim.status !== 'released') return [];
  esim.status = 'installed';
  return [{ id: notificationId(), type: 'esim.installed', occurredAt: now.toISOString(), iccid: esim.iccid }];
}

const randomEid = () => `89049032${Array.from({ length: 24 }, () => Math.floor(Math.random() * 10)).join('')}`;

function progress(esim: SimEsim, now: Date, point: number, status: 'Executed-Success' | 'Failed', reason?: { reasonCode: string; message: string }): SupplierNotification {
  return {
    id: notificationId(),
    type: 'es2.progress',
    occurredAt: now.toISOString(),
    iccid: esim.iccid,
    body: {
      ...(esim.eid ? { eid: esim.eid } : {}),
      iccid: esim.iccid,
      profileType: esim.profileType || 'esim-data',
      timestamp: now.toISOString(),
      notificationPointId: point,
      notificationPointStatus: reason ? { status, statusCodeData: { subjectCode: '8.1', reasonCode: reason.reasonCode, message: reason.message } } : { status },
    },
  };
}

/**
 * The SM-DP+ side of a download (SGP.22 §5.3.5 notification points): the
 * BPP is downloaded (point 3) and installed (point 4) on a device whose EID
 * the SM-DP+ now knows; with `fail`, the installation fails (point 4,
 * Failed) and the profile stays released. A profile not released (already
 * installed, deleted, cancelled) reports nothing.
 */
export function installOverEs2(esim: SimEsim, now: Date, fail: boolean): SupplierNotification[] {
  if (esim.status !== 'released') return [];
  esim.eid ??= randomEid();
  if (fail) return [progress(esim, now, 3, 'Executed-Success'), progress(esim, now, 4, 'Failed', { reasonCode: '4.2', message: 'BPP installation failed on the eUICC.' })];
  esim.status = 'installed';
  return [progress(esim, now, 3, 'Executed-Success'), progress(esim, now, 4, 'Executed-Success')];
}

/**
 * The traveller deletes the profile from the device (reported as
 * notification point 5). A profile never downloaded is downloaded and
 * installed first (its points 3 and 4 come first), as use installs it.
 */
export function deleteOverEs2(esim: SimEsim, now: Date): SupplierNotification[] {
  const installed = esim.status === 'released' ? installOverEs2(esim, now, false) : [];
  if (esim.status !== 'installed') return installed;
  esim.status = 'deleted';
  return [...installed, progress(esim, now, 5, 'Executed-Success')];
}

/**
 * The traveller used `addMb` more. Drawn from the active bundle, else the
 * oldest queued one (which becomes active now and runs for its validity),
 * each filled to its size (depleted) before the next; what no bundle can
 * hold is dropped. Use on a device that never installed the profile
 * installs it first. One `bundle.usage` per bundle touched, cumulative.
 */
export function use(esim: SimEsim, addMb: number, now: Date): SupplierNotification[] {
  if (esim.status !== 'released' && esim.status !== 'installed') return [];
  const notifications = install(esim, now);
  let remainingMb = addMb;
  while (remainingMb > 0) {
    const bundle = activeBundle(esim) ?? activateNext(esim, now);
    if (!bundle) break;
    const takenMb = Math.min(remainingMb, bundle.dataMb - bundle.dataUsedMb);
    bundle.dataUsedMb += takenMb;
    remainingMb -= takenMb;
    if (bundle.dataUsedMb === bundle.dataMb) bundle.status = 'depleted';
    notifications.push({
      id: notificationId(),
      type: 'bundle.usage',
      occurredAt: now.toISOString(),
      iccid: esim.iccid,
      reference: bundle.reference,
      dataUsedMb: bundle.dataUsedMb,
    });
  }
  return notifications;
}

/** The active bundle's validity ends now; without an active bundle nothing happens. */
export function expire(esim: SimEsim, now: Date): SupplierNotification[] {
  if (esim.status !== 'released' && esim.status !== 'installed') return [];
  const bundle = activeBundle(esim);
  if (!bundle) return [];
  bundle.status = 'expired';
  bundle.expiresAt = now.toISOString();
  return [{ id: notificationId(), type: 'bundle.expired', occurredAt: now.toISOString(), iccid: esim.iccid, reference: bundle.reference }];
}

function activeBundle(esim: SimEsim): SimBundle | undefined {
  return esim.bundles.find((bundle) => bundle.status === 'active');
}

function activateNext(esim: SimEsim, now: Date): SimBundle | undefined {
  const bundle = esim.bundles.find((each) => each.status === 'queued');
  if (!bundle) return undefined;
  bundle.status = 'active';
  bundle.activatedAt = now.toISOString();
  bundle.expiresAt = new Date(now.getTime() + bundle.validityDays * dayMs).toISOString();
  return bundle;
}
