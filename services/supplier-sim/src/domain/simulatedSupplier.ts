import { newEsimProfile, type EsimProfile } from './esimIdentity.js';

export interface IssuedEsim extends EsimProfile {
  /** The caller's idempotency reference (the platform sends its order id). */
  reference: string;
  sku: string;
}

/** What the supplier answers to one eSIM request. */
export type SupplierAnswer =
  | { kind: 'issued'; esim: IssuedEsim; replayed: boolean }
  | { kind: 'rejected'; message: string }
  | { kind: 'unavailable'; message: string };

export interface SupplierRules {
  smdpAddress: string;
  /** 0 to 1: the share of requests that fail with a transient error. */
  failureRate: number;
  random?: () => number;
  /** How many references are remembered; the oldest are forgotten beyond it, so memory stays bounded. */
  maxReferences?: number;
}

/** SKUs with these prefixes let tests and demos reach the supplier's failure paths on purpose (contract §8). */
const rejectedPrefix = 'FAIL-';
const flakyPrefix = 'FLAKY-';
const flakyFailures = 2;

/**
 * The upstream supplier's behaviour, in memory. The reference is the
 * supplier-side idempotency key: once an eSIM is issued for it, every later
 * request with that reference gets the same eSIM, which is what lets the
 * platform retry a call whose answer it never saw.
 */
export class SimulatedSupplier {
  private readonly issued = new Map<string, IssuedEsim>();
  private readonly flakyCalls = new Map<string, number>();
  private readonly random: () => number;
  private readonly maxReferences: number;

  constructor(private readonly rules: SupplierRules) {
    this.random = rules.random ?? Math.random;
    this.maxReferences = rules.maxReferences ?? 100_000;
  }

  order(sku: string, reference: string): SupplierAnswer {
    if (this.rules.failureRate > 0 && this.random() < this.rules.failureRate) {
      return { kind: 'unavailable', message: 'The supplier is temporarily unavailable.' };
    }
    const existing = this.issued.get(reference);
    if (existing) return { kind: 'issued', esim: existing, replayed: true };
    if (sku.startsWith(rejectedPrefix)) return { kind: 'rejected', message: `SKU ${sku} cannot be provisioned.` };
    if (sku.startsWith(flakyPrefix)) {
      const calls = (this.flakyCalls.get(reference) ?? 0) + 1;
      remember(this.flakyCalls, reference, calls, this.maxReferences);
      if (calls <= flakyFailures) return { kind: 'unavailable', message: 'The supplier is temporarily unavailable.' };
    }
    const esim: IssuedEsim = { reference, sku, ...newEsimProfile(this.rules.smdpAddress) };
    remember(this.issued, reference, esim, this.maxReferences);
    this.flakyCalls.delete(reference);
    return { kind: 'issued', esim, replayed: false };
  }

  find(reference: string): IssuedEsim | undefined {
    return this.issued.get(reference);
  }
}

/** Sets a key, dropping the oldest entry (Map keeps insertion order) once the map is full. */
function remember<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  map.set(key, value);
  if (map.size > max) {
    const oldest = map.keys().next().value;
    if (oldest !== undefined) map.delete(oldest);
  }
}
