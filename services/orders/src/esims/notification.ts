import { enqueueEvent } from '@esim/events';
import type { Queryable } from '@esim/postgres';
import type { EsimNotificationType } from '@esim/vocabulary';
import { saveBundle, saveEsim } from '../store/esimStore.js';
import { schema } from '../store/orderStore.js';
import { expiryOf, type BundleRecord, type EsimState } from './esim.js';
import { partnerBundleViewOf, partnerEsimViewOf } from '../domain/partnerView.js';

/** A report from either upstream as recorded: the connectivity provider's (contract §13) or the SM-DP+'s over ES2+ (§8). */
export interface SupplierNotification {
  id: string;
  type: EsimNotificationType;
  iccid: string;
  /** bundle.usage, bundle.expired: the bundle's order id. */
  reference: string | null;
  /** bundle.usage: cumulative use of that bundle. */
  dataUsedMb: number | null;
  occurredAt: Date;
  /** SM-DP+ reports: the device's EID, when named. */
  eid?: string | null;
  /** esim.install_failed: the notification point that failed, and why. */
  notificationPoint?: number | null;
  reasonCode?: string | null;
  message?: string | null;
}

type Effect =
  | { type: 'esim.installed' }
  | { type: 'esim.install_failed' }
  | { type: 'esim.deleted' }
  | { type: 'esim.usage_threshold'; bundle: string; threshold: 80 | 100 }
  | { type: 'esim.bundle_expired'; bundle: string };

/**
 * Applies one notification to its eSIM, in the caller's transaction (which
 * holds the eSIM's lock and has recorded the notification). Returns false
 * when the eSIM or the bundle is not known yet: the notification stays
 * unapplied and recordProvisioned applies it once they exist.
 *
 * The supplier is the source of truth; what it reports is applied once:
 * - esim.installed: released → installed (once);
 * - bundle.usage: a cumulative use above the recorded one is recorded (lower
 *   or equal: a late delivery, ignored); a queued bundle becomes active; 80 %
 *   and 100 % each emit esim.usage_threshold once per bundle (80 first); at
 *   100 % the bundle is depleted and the oldest queued one becomes active;
 * - bundle.expired: a queued or active bundle expires (once); if it was
 *   active, the oldest queued one becomes active.
 * A cancelled eSIM or bundle takes nothing more. Partner events carry the
 * eSIM's state after the whole notification, keyed by its first order id
 * so the webhooks service delivers one eSIM's events in order.
 */
export async function applyNotification(db: Queryable, state: EsimState | undefined, notification: SupplierNotification): Promise<boolean> {
  if (!state) return false;
  const { esim } = state;
  const effects: Effect[] = [];
  let changed: boolean;
  // The SM-DP+ names the device's EID on its reports; a cancelled eSIM takes nothing more.
  const eidLearnt = esim.status !== 'cancelled' && !!notification.eid && notification.eid !== esim.eid;
  if (eidLearnt) esim.eid = notification.eid!;
  if (notification.type === 'esim.installed') {
    changed = esim.status === 'released';
    if (changed) {
      esim.status = 'installed';
      esim.installedAt = notification.occurredAt;
      effects.push({ type: 'esim.installed' });
    }
  } else if (notification.type === 'esim.install_failed') {
    // A failed download or installation keeps the eSIM released (contract §8); once installed, a late failure report changes nothing.
    changed = esim.status === 'released';
    if (changed) {
      esim.lastError = {
        at: notification.occurredAt,
        notificationPoint: notification.notificationPoint ?? 0,
        reasonCode: notification.reasonCode ?? null,
        message: notification.message ?? null,
      };
      effects.push({ type: 'esim.install_failed' });
    }
  } else if (notification.type === 'esim.deleted') {
    changed = esim.status === 'released' || esim.status === 'installed';
    if (changed) {
      esim.status = 'deleted';
      esim.deletedAt = notification.occurredAt;
      effects.push({ type: 'esim.deleted' });
    }
  } else if (notification.type === 'esim.progress') {
    changed = false;
  } else {
    const bundle = state.bundles.find((candidate) => candidate.orderId === notification.reference);
    // A bundle not known yet waits for provisioning, unless the eSIM is cancelled and will take no more.
    if (!bundle) return esim.status === 'cancelled';
    if (esim.status === 'cancelled' || bundle.status === 'cancelled') return true;
    changed =
      notification.type === 'bundle.usage' ? applyUsage(state, bundle, notification, effects) : applyExpiry(state, bundle, notification, effects);
  }
  if (!changed && !eidLearnt) return true;
  esim.updatedAt = new Date();
  await saveEsim(db, esim);
  for (const bundle of state.bundles) await saveBundle(db, bundle);
  for (const effect of effects) await announce(db, state, effect);
  return true;
}

/** Records a higher cumulative use; false when there is nothing to record. */
function applyUsage(state: EsimState, bundle: BundleRecord, notification: SupplierNotification, effects: Effect[]): boolean {
  const reported = Math.min(notification.dataUsedMb ?? 0, bundle.dataMb);
  if (reported <= bundle.dataUsedMb || bundle.status === 'expired') return false;
  if (bundle.status === 'queued') {
    // The supplier draws from a later bundle only once the earlier ones ended: any still active here ended unreported.
    for (const other of state.bundles) if (other.status === 'active' && other.seq < bundle.seq) other.status = 'depleted';
    activate(bundle, notification.occurredAt);
  }
  bundle.dataUsedMb = reported;
  state.esim.usageUpdatedAt = laterOf(state.esim.usageUpdatedAt, notification.occurredAt);
  if (bundle.threshold80At === null && reported * 100 >= bundle.dataMb * 80) {
    bundle.threshold80At = notification.occurredAt;
    effects.push({ type: 'esim.usage_threshold', bundle: bundle.orderId, threshold: 80 });
  }
  if (reported >= bundle.dataMb) {
    if (bundle.threshold100At === null) {
      bundle.threshold100At = notification.occurredAt;
      effects.push({ type: 'esim.usage_threshold', bundle: bundle.orderId, threshold: 100 });
    }
    if (bundle.status === 'active') {
      bundle.status = 'depleted';
      activateNext(state, notification.occurredAt);
    }
  }
  return true;
}

/** Expires a queued or active bundle once; false when it had already ended (expired, or depleted: nothing left to expire). */
function applyExpiry(state: EsimState, bundle: BundleRecord, notification: SupplierNotification, effects: Effect[]): boolean {
  if (bundle.status !== 'queued' && bundle.status !== 'active') return false;
  const wasActive = bundle.status === 'active';
  bundle.status = 'expired';
  effects.push({ type: 'esim.bundle_expired', bundle: bundle.orderId });
  if (wasActive) activateNext(state, notification.occurredAt);
  return true;
}

function activate(bundle: BundleRecord, at: Date): void {
  bundle.status = 'active';
  bundle.activatedAt = at;
  bundle.expiresAt = expiryOf(at, bundle.validityDays);
}

/** The oldest queued bundle starts when the active one ends (contract §13). */
export function activateNext(state: EsimState, at: Date): void {
  if (state.bundles.some((bundle) => bundle.status === 'active')) return;
  const next = state.bundles.find((bundle) => bundle.status === 'queued');
  if (next) activate(next, at);
}

function laterOf(current: Date | null, candidate: Date): Date {
  return current === null || candidate > current ? candidate : current;
}

async function announce(db: Queryable, state: EsimState, effect: Effect): Promise<void> {
  const esim = partnerEsimViewOf(state);
  const base = { partnerId: state.esim.partnerId, orderId: state.esim.orderId };
  if (effect.type === 'esim.installed' || effect.type === 'esim.install_failed' || effect.type === 'esim.deleted') {
    await enqueueEvent(db, schema, 'partner.notification', { ...base, type: effect.type, payload: { esim } });
    return;
  }
  const bundle = partnerBundleViewOf(state.bundles.find((candidate) => candidate.orderId === effect.bundle)!, esim.livemode);
  if (effect.type === 'esim.usage_threshold') {
    await enqueueEvent(db, schema, 'partner.notification', { ...base, type: 'esim.usage_threshold', payload: { esim, bundle, threshold: effect.threshold } });
  } else {
    await enqueueEvent(db, schema, 'partner.notification', { ...base, type: 'esim.bundle_expired', payload: { esim, bundle } });
  }
}
