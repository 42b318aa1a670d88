import { AppError } from '@esim/errors';
import type { Queryable } from '@esim/postgres';
import { lookupPlan } from './lookupPlan.js';
import type { PlanCache, PricedPlan } from './planCache.js';
import { parseTier, priceForTier } from './pricing.js';

/**
 * The price a partner of `tier` pays for a plan right now: the one pricing
 * call the orders service makes, so an order costs what the catalog shows.
 * Unknown, malformed and inactive plan ids are all "not available".
 */
export async function getPlanPrice(deps: { cache: PlanCache; db: Queryable }, request: { planId: string; tier: string }): Promise<PricedPlan> {
  const tier = parseTier(request.tier);
  const plan = await lookupPlan(deps, request.planId);
  if (!plan || !plan.active) throw new AppError('PLAN_NOT_AVAILABLE', `Plan ${request.planId} is unknown or no longer sold.`);
  return { plan, price: priceForTier(plan.floorPrice, tier) };
}
