import { iccidPattern } from '@esim/ids';
import { z } from 'zod';

/**
 * What the simulated supplier knows, as one schema: it types the domain,
 * and it validates the state file when the simulator starts again.
 */
const isoTime = z.iso.datetime();

export const bundleSchema = z.object({
  /** The caller's idempotency reference: the platform's order id. */
  reference: z.string().min(1),
  sku: z.string().min(1),
  dataMb: z.number().int().positive(),
  dataUsedMb: z.number().int().min(0),
  validityDays: z.number().int().positive(),
  status: z.enum(['queued', 'active', 'depleted', 'expired', 'cancelled']),
  activatedAt: isoTime.nullable(),
  expiresAt: isoTime.nullable(),
});

export const esimSchema = z.object({
  iccid: z.string().regex(iccidPattern),
  /** Empty for an ICCID another SM-DP+ issued (the connectivity side alone knows it). */
  smdpAddress: z.string(),
  matchingId: z.string(),
  activationCode: z.string(),
  /**
   * allocated (ES2+ DownloadOrder) → released (ConfirmOrder, or the old
   * supplier API) → installed → deleted (from the device); revoked (the
   * connectivity side's revocation); cancelled (ES2+ CancelOrder).
   */
  status: z.enum(['allocated', 'released', 'installed', 'deleted', 'revoked', 'cancelled']),
  /** The SM-DP+ side's facts: the profile type ordered, the device's EID once installed, the ES2+ call ids seen (a retry answers the same). */
  profileType: z.string().default(''),
  eid: z.string().nullable().default(null),
  callIds: z.array(z.string()).default([]),
  /** Data stopped by the connectivity provider (contract §13 suspension). */
  suspended: z.boolean().default(false),
  /** In creation order; the first one's reference names the eSIM (none yet while the SM-DP+ order is open). */
  bundles: z.array(bundleSchema),
});

const notificationBase = { id: z.string().min(1), occurredAt: isoTime, iccid: z.string().min(1) };

/**
 * What the simulator reports, exactly as it is sent: the connectivity
 * provider's signed notifications (contract §13), and the SM-DP+'s ES2+
 * HandleDownloadProgressInfo (type `es2.progress`, sent to the platform's
 * ES2+ listener; `body` is the function's request without its header).
 */
export const notificationSchema = z.discriminatedUnion('type', [
  z.object({
    ...notificationBase,
    type: z.literal('es2.progress'),
    body: z.object({
      eid: z.string().optional(),
      iccid: z.string(),
      profileType: z.string(),
      timestamp: z.string(),
      notificationPointId: z.number().int(),
      notificationPointStatus: z.object({
        status: z.string(),
        statusCodeData: z.object({ subjectCode: z.string(), reasonCode: z.string(), subjectIdentifier: z.string().optional(), message: z.string().optional() }).optional(),
      }),
    }),
  }),
  z.object({ ...notificationBase, type: z.literal('esim.installed') }),
  z.object({ ...notificationBase, type: z.literal('bundle.usage'), reference: z.string().min(1), dataUsedMb: z.number().int().min(0) }),
  z.object({ ...notificationBase, type: z.literal('bundle.expired'), reference: z.string().min(1) }),
]);

export const snapshotSchema = z.object({
  version: z.literal(1),
  /** Oldest first: the order in which they are forgotten once the state is full. */
  esims: z.array(esimSchema),
  /** Notifications not yet accepted by the platform, oldest first. */
  outbox: z.array(notificationSchema),
});

export type SimBundle = z.output<typeof bundleSchema>;
export type SimEsim = z.output<typeof esimSchema>;
export type SupplierNotification = z.output<typeof notificationSchema>;
export type Snapshot = z.output<typeof snapshotSchema>;

/** The bundle a reference names, with its eSIM. */
export interface Located {
  esim: SimEsim;
  bundle: SimBundle;
}

/**
 * The eSIMs by ICCID and every bundle by reference, plus the notifications
 * waiting for the platform. `version` counts changes, so the state file
 * knows whether it is behind. Bounded: past `maxReferences` bundles, the
 * oldest eSIMs are forgotten whole (a real supplier keeps everything; the
 * platform never asks about eSIMs that old in a development run).
 */
export class SupplierState {
  private readonly esims = new Map<string, SimEsim>();
  private readonly references = new Map<string, Located>();
  private readonly calls = new Map<string, SimEsim>();
  readonly outbox: SupplierNotification[] = [];
  version = 0;

  constructor(private readonly maxReferences: number) {}

  static fromSnapshot(snapshot: Snapshot, maxReferences: number): SupplierState {
    const state = new SupplierState(maxReferences);
    for (const esim of snapshot.esims) state.index(esim);
    state.outbox.push(...snapshot.outbox);
    state.evict();
    return state;
  }

  snapshot(): Snapshot {
    return { version: 1, esims: [...this.esims.values()], outbox: this.outbox };
  }

  /** Every mutation of an eSIM, bundle or the outbox ends with this. */
  changed(): void {
    this.version += 1;
  }

  byIccid(iccid: string): SimEsim | undefined {
    return this.esims.get(iccid);
  }

  byReference(reference: string): Located | undefined {
    return this.references.get(reference);
  }

  /** The eSIM an ES2+ call id was used on (a retry of that call). */
  byCallId(callId: string): SimEsim | undefined {
    return this.calls.get(callId);
  }

  /** Remembers an ES2+ call made on the eSIM, so its retry answers the same. */
  addCallId(esim: SimEsim, callId: string): void {
    esim.callIds.push(callId);
    this.calls.set(callId, esim);
    this.changed();
  }

  addEsim(esim: SimEsim): void {
    this.index(esim);
    this.evict(esim);
    this.changed();
  }

  addBundle(esim: SimEsim, bundle: SimBundle): void {
    esim.bundles.push(bundle);
    this.references.set(bundle.reference, { esim, bundle });
    this.evict(esim);
    this.changed();
  }

  enqueue(notifications: SupplierNotification[]): void {
    if (notifications.length === 0) return;
    this.outbox.push(...notifications);
    this.changed();
  }

  /** The platform accepted the oldest waiting notification. */
  delivered(): void {
    this.outbox.shift();
    this.changed();
  }

  private index(esim: SimEsim): void {
    this.esims.set(esim.iccid, esim);
    for (const callId of esim.callIds) this.calls.set(callId, esim);
    for (const bundle of esim.bundles) this.references.set(bundle.reference, { esim, bundle });
  }

  /** Forgets the oldest eSIMs (never `keep`) until the references fit. */
  private evict(keep?: SimEsim): void {
    for (const oldest of this.esims.values()) {
      if (this.references.size <= this.maxReferences) return;
      if (oldest === keep) continue;
      this.esims.delete(oldest.iccid);
      for (const bundle of oldest.bundles) this.references.delete(bundle.reference);
      for (const callId of oldest.callIds) this.calls.delete(callId);
    }
  }
}
