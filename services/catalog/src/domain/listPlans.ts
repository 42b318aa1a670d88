import type { PlanCache, PricedPlan } from './planCache.js';
import { parseTier } from './pricing.js';
import { pageOf, parseCountryFilter, parsePage } from './requestRules.js';

/**
 * The partner catalog: active plans covering a country (every active plan
 * when none is given), local plans before regional ones, then cheapest first.
 * `total` counts the whole filtered list; a page past its end is empty.
 */
export function listPlans(cache: PlanCache, request: { country: string; tier: string; page?: { page: number; limit: number } }): { plans: PricedPlan[]; total: number } {
  const tier = parseTier(request.tier);
  const country = parseCountryFilter(request.country);
  const page = parsePage(request.page);
  const matching = cache.activeFor(tier, country);
  return { plans: pageOf(matching, page), total: matching.length };
}
