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
  /** The state's change count when it was written: journal lines at or below it are already in it (absent in files written before the journal). */
  changes: z.number().int().min(0).default(0),
  /** Oldest first: the order in which they are forgotten once the state is full. */
  esims: z.array(esimSchema),
  /** Notifications not yet accepted by the platform, oldest first. */
  outbox: z.array(notificationSchema),
});

/**
 * One persist's worth of changes, as the state journal appends it: the
 * eSIMs forgotten, then every eSIM touched, whole (an upsert by ICCID), and
 * the whole outbox when it changed.
 */
export const journalLineSchema = z.object({
  changes: z.number().int().min(0),
  removed: z.array(z.string()).default([]),
  esims: z.array(esimSchema),
  outbox: z.array(notificationSchema).optional(),
});

/** What changed since the state was last taken (`StateFile` writes it to its journal). */
export interface Changes {
  changes: number;
  /** Something changed that the state cannot name: only a whole snapshot carries it. */
  everything: boolean;
  removed: string[];
  esims: SimEsim[];
  outbox: SupplierNotification[] | undefined;
}

export type SimBundle = z.output<typeof bundleSchema>;
export type SimEsim = z.output<typeof esimSchema>;
export type SupplierNotification = z.output<typeof notificationSchema>;
export type Snapshot = z.output<typeof snapshotSchema>;
export type JournalLine = z.output<typeof journalLineSchema>;

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
  // What changed since `takeChanges()`: ICCIDs in the order first touched (a new eSIM's creation order), so a replay appends them in the order memory holds them.
  private touched = new Set<string>();
  private removed = new Set<string>();
  private outboxChanged = false;
  private everything = false;

  constructor(private readonly maxReferences: number) {}

  /** The snapshot, then the journal lines written after it, oldest first. */
  static fromSnapshot(snapshot: Snapshot, maxReferences: number, journal: JournalLine[] = []): SupplierState {
    const state = new SupplierState(maxReferences);
    for (const esim of snapshot.esims) state.index(esim);
    state.outbox.push(...snapshot.outbox);
    state.version = snapshot.changes;
    for (const line of journal) {
      if (line.changes <= state.version) continue;
      for (const iccid of line.removed) state.forget(iccid);
      for (const esim of line.esims) state.index(esim);
      if (line.outbox) state.outbox.splice(0, state.outbox.length, ...line.outbox);
      state.version = line.changes;
    }
    state.evict();
    state.takeChanges();
    return state;
  }

  snapshot(): Snapshot {
    return { version: 1, changes: this.version, esims: [...this.esims.values()], outbox: this.outbox };
  }

  /**
   * Every mutation of an eSIM, bundle or the outbox ends with this; `esim`
   * names the eSIM changed in place. Without it, nothing names the change,
   * so the next write is a whole snapshot.
   */
  changed(esim?: SimEsim): void {
    if (esim) this.touched.add(esim.iccid);
    else this.everything = true;
    this.version += 1;
  }

  /** What changed since the last call, with the eSIMs as they are now; starts the next count. */
  takeChanges(): Changes {
    const esims: SimEsim[] = [];
    // An eSIM touched, then forgotten, is no longer here: its removal says it.
    for (const iccid of this.touched) {
      const esim = this.esims.get(iccid);
      if (esim) esims.push(esim);
    }
    const changes: Changes = {
      changes: this.version,
      everything: this.everything,
      removed: [...this.removed],
      esims,
      outbox: this.outboxChanged ? this.outbox : undefined,
    };
    this.touched = new Set();
    this.removed = new Set();
    this.outboxChanged = false;
    this.everything = false;
    return changes;
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
    this.changed(esim);
  }

  addEsim(esim: SimEsim): void {
    this.index(esim);
    this.evict(esim);
    this.changed(esim);
  }

  addBundle(esim: SimEsim, bundle: SimBundle): void {
    esim.bundles.push(bundle);
    this.references.set(bundle.reference, { esim, bundle });
    this.evict(esim);
    this.changed(esim);
  }

  /** The notifications an action on the network gave rise to; the eSIMs they name changed with them. */
  enqueue(notifications: SupplierNotification[]): void {
    if (notifications.length === 0) return;
    this.outbox.push(...notifications);
    this.outboxChanged = true;
    for (const notification of notifications) this.touched.add(notification.iccid);
    this.version += 1;
  }

  /** The platform accepted the oldest waiting notification. */
  delivered(): void {
    this.outbox.shift();
    this.outboxChanged = true;
    this.version += 1;
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
      this.forget(oldest.iccid);
      this.removed.add(oldest.iccid);
    }
  }

  private forget(iccid: string): void {
    const esim = this.esims.get(iccid);
    if (!esim) return;
    this.esims.delete(iccid);
    for (const bundle of esim.bundles) this.references.delete(bundle.reference);
    for (const callId of esim.callIds) this.calls.delete(callId);
  }
}
