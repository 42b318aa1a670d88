import type { Plan } from './plan.js';
import { tiers, type Tier } from '@esim/vocabulary';
import { priceForTier } from './pricing.js';

/** A plan with the price one tier pays for it. */
export interface PricedPlan {
  plan: Plan;
  price: number;
}

interface Snapshot {
  byId: Map<string, Plan>;
  /** Active plans per tier, in partner order: fewest countries first, then price, then id. */
  partnerOrder: Record<Tier, PricedPlan[]>;
  /** Every plan, newest first (ties by id, descending). */
  adminOrder: Plan[];
}

/**
 * Every plan, held in memory: the catalog is a few hundred rows read on every
 * partner request, so requests never wait on Postgres. `reload` replaces the
 * whole snapshot; reloads never overlap, and one asked for while another runs
 * is queued (several requests share it), so a reload requested after a commit
 * always sees that commit.
 */
export class PlanCache {
  private snapshot: Snapshot = buildSnapshot([]);
  private running: Promise<void> | undefined;
  private queued: Promise<void> | undefined;

  constructor(
    private readonly loadAll: () => Promise<Plan[]>,
    private readonly onRefreshError: (error: unknown) => void,
  ) {}

  /**
   * Reload after this replica's own write. The write is already committed,
   * so a failed reload must not fail the operator's call: it is reported and
   * the next reload (change event, periodic) catches up.
   */
  async refreshAfterWrite(): Promise<void> {
    await this.reload().catch(this.onRefreshError);
  }

  reload(): Promise<void> {
    if (!this.running) {
      this.running = this.loadAll()
        .then((plans) => {
          this.snapshot = buildSnapshot(plans);
        })
        .finally(() => {
          this.running = undefined;
        });
      return this.running;
    }
    this.queued ??= this.running
      .catch(() => {})
      .then(() => {
        this.queued = undefined;
        return this.reload();
      });
    return this.queued;
  }

  size(): number {
    return this.snapshot.byId.size;
  }

  get(id: string): Plan | undefined {
    return this.snapshot.byId.get(id);
  }

  /** Active plans covering `country` (all when undefined), priced for `tier`, in partner order. */
  activeFor(tier: Tier, country: string | undefined): PricedPlan[] {
    const plans = this.snapshot.partnerOrder[tier];
    // A linear filter over a few hundred plans costs microseconds; no per-country index needed.
    return country === undefined ? plans : plans.filter(({ plan }) => plan.countries.includes(country));
  }

  /** Every plan matching the filters, newest first. */
  all(filter: { active?: boolean; country?: string }): Plan[] {
    return this.snapshot.adminOrder.filter(
      (plan) => (filter.active === undefined || plan.active === filter.active) && (filter.country === undefined || plan.countries.includes(filter.country)),
    );
  }
}

function buildSnapshot(plans: Plan[]): Snapshot {
  const active = plans.filter((plan) => plan.active);
  const partnerOrder = Object.fromEntries(tiers.map((tier) => [tier, priceAndSort(active, tier)])) as Record<Tier, PricedPlan[]>;
  const adminOrder = [...plans].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || compareIds(b.id, a.id));
  return { byId: new Map(plans.map((plan) => [plan.id, plan])), partnerOrder, adminOrder };
}

function priceAndSort(plans: Plan[], tier: Tier): PricedPlan[] {
  return plans
    .map((plan) => ({ plan, price: priceForTier(plan.floorPrice, tier) }))
    .sort((a, b) => a.plan.countries.length - b.plan.countries.length || a.price - b.price || compareIds(a.plan.id, b.plan.id));
}

/** Byte order, as Postgres's "C" collation would sort ids; localeCompare would depend on the locale. */
function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
