import { onEveryReplica, type Namespace, type NatsConnection } from '@esim/events';
import type { Logger } from '@esim/telemetry';
import type { Catalog, PlanPrice, PriceRequest } from './catalog.js';

/**
 * After a change, prices fetched in this window are kept only until it ends:
 * every catalog replica reloads its plans on the same event, and one that has
 * not yet may still answer with the old price (as the gateway's pages do).
 */
export const settleMs = 1_000;

interface Entry {
  price: PlanPrice;
  expiresAt: number;
  /** The catalog version of the order that asked for it: the price is at least that new. */
  version: number;
}

interface Pending {
  asking: Promise<PlanPrice>;
  version: number;
}

/**
 * Plan prices kept in this process per (plan, tier), so an order does not
 * call the catalog for a price it asked for a moment ago. Dropped for a plan
 * when the catalog announces that plan changed, entirely by `clear` (a NATS
 * reconnect, when an announcement may have been missed), and after `ttlMs`
 * whatever happens: the bound if an announcement is lost. Only prices are
 * kept: a refusal (unknown or inactive plan, catalog unreachable) is asked
 * again every time, so a plan made available is sold at once. Concurrent
 * orders for a missing price share one call.
 *
 * An order may carry the gateway's catalog version (raised before the
 * operator hears back from a plan write): a price is charged only if it was
 * asked for by an order with that version or a later one, so an order placed
 * after the write's answer never waits on the event for the new price.
 */
export class PriceCache implements Catalog {
  private entries = new Map<string, Entry>();
  private readonly pending = new Map<string, Pending>();
  /** Bumped by every change: a call that started before one is not stored. */
  private generation = 0;
  private readonly unsettledUntil = new Map<string, number>();
  private allUnsettledUntil = 0;

  constructor(
    private readonly catalog: Catalog,
    private readonly ttlMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  getPlanPrice(request: PriceRequest): Promise<PlanPrice> {
    const key = `${request.planId}\u0000${request.tier}`;
    const version = request.catalogVersion ?? 0;
    const entry = this.entries.get(key);
    if (entry !== undefined && entry.version >= version && entry.expiresAt > this.now()) return Promise.resolve(entry.price);
    const pending = this.pending.get(key);
    if (pending !== undefined && pending.version >= version) return pending.asking;
    return this.fill(key, { planId: request.planId, tier: request.tier }, version);
  }

  /** `catalog.plan.changed` for `planId`: forget its prices now, and those fetched in the next moments soon again. */
  planChanged(planId: string): void {
    this.generation += 1;
    this.unsettledUntil.set(planId, this.now() + settleMs);
    const prefix = `${planId}\u0000`;
    for (const key of [...this.entries.keys(), ...this.pending.keys()]) {
      if (key.startsWith(prefix)) {
        this.entries.delete(key);
        this.pending.delete(key);
      }
    }
  }

  /** Forget every price (a change may have gone unheard). */
  clear(): void {
    this.generation += 1;
    this.allUnsettledUntil = this.now() + settleMs;
    this.entries = new Map();
    this.pending.clear();
  }

  close(): void {
    this.catalog.close();
  }

  private fill(key: string, request: PriceRequest, version: number): Promise<PlanPrice> {
    const generation = this.generation;
    const asking = this.catalog
      .getPlanPrice(request)
      .then((price) => {
        // An answer to an older version's call, landing after a newer one's, does not displace it.
        const stored = this.entries.get(key);
        if (generation === this.generation && !(stored !== undefined && stored.version > version && stored.expiresAt > this.now())) {
          this.entries.set(key, { price, expiresAt: this.expiry(request.planId), version });
        }
        return price;
      })
      .finally(() => {
        if (this.pending.get(key)?.asking === asking) this.pending.delete(key);
      });
    this.pending.set(key, { asking, version });
    return asking;
  }

  private expiry(planId: string): number {
    const now = this.now();
    const settled = Math.max(this.allUnsettledUntil, this.unsettledUntil.get(planId) ?? 0);
    if (now < settled) return settled;
    if (settled !== 0) this.unsettledUntil.delete(planId);
    return now + this.ttlMs;
  }
}

/**
 * The catalog client behind a PriceCache kept current by the catalog's
 * `catalog.plan.changed` (a core NATS subscription, so every orders replica
 * hears every change, as the catalog's and the gateway's replicas do) and
 * cleared after a NATS reconnect. `ttlMs` 0 returns the client as it is.
 */
export function cachedCatalog(options: { catalog: Catalog; ttlMs: number; nc: NatsConnection; ns: Namespace; logger: Logger }): {
  catalog: Catalog;
  stop(): void;
} {
  const { catalog, ttlMs, nc, ns, logger } = options;
  if (ttlMs === 0) return { catalog, stop: () => {} };
  const cache = new PriceCache(catalog, ttlMs);
  const changes = onEveryReplica({ nc, ns, type: 'catalog.plan.changed', logger, handle: ({ planId }) => cache.planChanged(planId), reset: () => cache.clear() });
  return { catalog: cache, stop: changes.stop };
}
