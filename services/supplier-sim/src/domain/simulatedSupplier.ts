import { newEsimProfile } from './esimIdentity.js';
import type { Located, SimBundle, SimEsim, SupplierState } from './state.js';

/** A bundle's size as the caller states it (a real supplier knows it from the SKU; the simulator has no catalog). */
export interface BundleSize {
  dataMb?: number | undefined;
  validityDays?: number | undefined;
}

export const defaultBundleSize = { dataMb: 1024, validityDays: 30 } as const;

const unavailable = { kind: 'unavailable', message: 'The supplier is temporarily unavailable.' } as const;

/** What the supplier answers to an eSIM or bundle request. */
export type IssueAnswer =
  | { kind: 'issued'; located: Located; replayed: boolean }
  | { kind: 'rejected'; message: string }
  | { kind: 'unavailable'; message: string }
  | { kind: 'not_found' }
  | { kind: 'esim_revoked' }
  | { kind: 'reference_conflict' };

export type RevokeAnswer =
  | { kind: 'revoked'; located: Located }
  | { kind: 'unavailable'; message: string }
  | { kind: 'not_found' }
  | { kind: 'bundle_used' }
  | { kind: 'esim_installed' };

export interface SupplierRules {
  smdpAddress: string;
  /** 0 to 1: the share of requests that fail with a transient error. */
  failureRate: number;
  random?: () => number;
  /** How many FLAKY- references are counted at once; the oldest are forgotten beyond it. */
  maxFlakyReferences?: number;
}

/** SKUs with these prefixes let tests and demos reach the supplier's failure paths on purpose (contract §8). */
const rejectedPrefix = 'FAIL-';
const flakyPrefix = 'FLAKY-';
const flakyFailures = 2;

/**
 * The upstream supplier's side of the platform's calls: issue an eSIM, add
 * a bundle to one, revoke a bundle. The reference is the supplier-side
 * idempotency key: once something was done for it, every later request with
 * that reference gets the same answer, which is what lets the platform retry
 * a call whose answer it never saw. FLAKY- counters live in memory only (a
 * restart grants two more failures, which no caller can tell apart).
 */
export class SimulatedSupplier {
  private readonly flakyCalls = new Map<string, number>();
  private readonly random: () => number;
  private readonly maxFlakyReferences: number;

  constructor(
    private readonly state: SupplierState,
    private readonly rules: SupplierRules,
  ) {
    this.random = rules.random ?? Math.random;
    this.maxFlakyReferences = rules.maxFlakyReferences ?? 10_000;
  }

  /**
   * `POST /v1/esims`: the first bundle, named by `reference`, on the ICCID
   * the SM-DP+ issued (the simulator's own SM-DP+ side, or another one's:
   * an unknown ICCID becomes a subscription here). Without an ICCID, the
   * older supplier API: the simulator issues the profile itself.
   */
  order(sku: string, reference: string, size: BundleSize = {}, iccid?: string): IssueAnswer {
    if (this.failsAtRandom()) return unavailable;
    const existing = this.state.byReference(reference);
    if (existing) {
      const isFirstBundle = existing.esim.bundles[0] === existing.bundle;
      const sameEsim = iccid === undefined || existing.esim.iccid === iccid;
      return isFirstBundle && sameEsim ? { kind: 'issued', located: existing, replayed: true } : { kind: 'reference_conflict' };
    }
    const refused = this.skuRefusal(sku, reference);
    if (refused) return refused;
    const bundle = newBundle(sku, reference, size);
    if (iccid !== undefined) {
      const known = this.state.byIccid(iccid);
      if (known && known.bundles.length > 0) return { kind: 'reference_conflict' };
      if (known?.status === 'revoked' || known?.status === 'cancelled') return { kind: 'esim_revoked' };
      if (known) {
        this.state.addBundle(known, bundle);
        return { kind: 'issued', located: { esim: known, bundle }, replayed: false };
      }
      const foreign: SimEsim = { iccid, smdpAddress: '', matchingId: '', activationCode: '', status: 'released', profileType: '', eid: null, callIds: [], suspended: false, bundles: [bundle] };
      this.state.addEsim(foreign);
      return { kind: 'issued', located: { esim: foreign, bundle }, replayed: false };
    }
    const esim: SimEsim = { ...newEsimProfile(this.rules.smdpAddress), status: 'released', profileType: '', eid: null, callIds: [], suspended: false, bundles: [bundle] };
    this.state.addEsim(esim);
    return { kind: 'issued', located: { esim, bundle }, replayed: false };
  }

  /** `POST /v1/esims/{iccid}/suspend|resume` (contract §13): data stops or restarts; the same again changes nothing. */
  setSuspended(iccid: string, suspended: boolean): { kind: 'done'; esim: SimEsim } | { kind: 'not_found' } | { kind: 'esim_revoked' } | { kind: 'unavailable'; message: string } {
    if (this.failsAtRandom()) return unavailable;
    const esim = this.state.byIccid(iccid);
    if (!esim || esim.bundles.length === 0) return { kind: 'not_found' };
    if (esim.status === 'revoked' || esim.status === 'cancelled') return { kind: 'esim_revoked' };
    if (esim.suspended !== suspended) {
      esim.suspended = suspended;
      this.state.changed(esim);
    }
    return { kind: 'done', esim };
  }

  /** `POST /v1/esims/{iccid}/bundles`: a top-up, queued behind the eSIM's other bundles. */
  addBundle(iccid: string, sku: string, reference: string, size: BundleSize = {}): IssueAnswer {
    if (this.failsAtRandom()) return unavailable;
    const existing = this.state.byReference(reference);
    if (existing) {
      const sameTopUp = existing.esim.iccid === iccid && existing.esim.bundles[0] !== existing.bundle;
      return sameTopUp ? { kind: 'issued', located: existing, replayed: true } : { kind: 'reference_conflict' };
    }
    const esim = this.state.byIccid(iccid);
    if (!esim) return { kind: 'not_found' };
    if (esim.status === 'revoked' || esim.status === 'cancelled') return { kind: 'esim_revoked' };
    const refused = this.skuRefusal(sku, reference);
    if (refused) return refused;
    const bundle = newBundle(sku, reference, size);
    this.state.addBundle(esim, bundle);
    return { kind: 'issued', located: { esim, bundle }, replayed: false };
  }

  /**
   * `POST /v1/bundles/{reference}/revoke`: a first bundle's reference revokes
   * the whole eSIM (every bundle cancelled), a top-up's only that bundle.
   * Only what was never used (and, for an eSIM, never installed) can go.
   */
  revoke(reference: string): RevokeAnswer {
    if (this.failsAtRandom()) return unavailable;
    const located = this.state.byReference(reference);
    if (!located) return { kind: 'not_found' };
    const { esim, bundle } = located;
    const isFirstBundle = esim.bundles[0] === bundle;
    const alreadyDone = isFirstBundle ? esim.status === 'revoked' : bundle.status === 'cancelled';
    if (alreadyDone) return { kind: 'revoked', located };
    if (bundle.dataUsedMb > 0) return { kind: 'bundle_used' };
    if (isFirstBundle && esim.status === 'installed') return { kind: 'esim_installed' };
    if (isFirstBundle) {
      esim.status = 'revoked';
      for (const each of esim.bundles) if (each.status === 'queued' || each.status === 'active') each.status = 'cancelled';
    } else {
      bundle.status = 'cancelled';
    }
    this.state.changed(esim);
    return { kind: 'revoked', located };
  }

  find(reference: string): Located | undefined {
    return this.state.byReference(reference);
  }

  failsAtRandom(): boolean {
    return this.rules.failureRate > 0 && this.random() < this.rules.failureRate;
  }

  /** FAIL- is refused for good; FLAKY- fails its first two calls per reference. */
  private skuRefusal(sku: string, reference: string): IssueAnswer | undefined {
    if (sku.startsWith(rejectedPrefix)) return { kind: 'rejected', message: `SKU ${sku} cannot be provisioned.` };
    if (!sku.startsWith(flakyPrefix)) return undefined;
    const calls = (this.flakyCalls.get(reference) ?? 0) + 1;
    this.flakyCalls.set(reference, calls);
    if (this.flakyCalls.size > this.maxFlakyReferences) {
      const oldest = this.flakyCalls.keys().next().value;
      if (oldest !== undefined) this.flakyCalls.delete(oldest);
    }
    if (calls <= flakyFailures) return unavailable;
    this.flakyCalls.delete(reference);
    return undefined;
  }
}

function newBundle(sku: string, reference: string, size: BundleSize): SimBundle {
  return {
    reference,
    sku,
    dataMb: size.dataMb ?? defaultBundleSize.dataMb,
    dataUsedMb: 0,
    validityDays: size.validityDays ?? defaultBundleSize.validityDays,
    status: 'queued',
    activatedAt: null,
    expiresAt: null,
  };
}
