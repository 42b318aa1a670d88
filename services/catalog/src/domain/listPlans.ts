import type { PlanCache, PricedPlan } from './planCache.js';
import { parseTier } from './pricing.js';
import { pageOf, parseCountryFilter, parseCoversAll, parsePage } from './requestRules.js';

/**
 * The partner catalog: active plans covering a country (every active plan
 * when none is given), local plans before regional ones, then cheapest first.
 * `coversAll` keeps only the plans covering every listed country: the plans
 * a top-up of an eSIM may use (contract §13). `total` counts the whole
 * filtered list; a page past its end is empty.
 */
export function listPlans(
  cache: PlanCache,
  request: { country: string; tier: string; coversAll?: string[]; page?: { page: number; limit: number } },
): { plans: PricedPlan[]; total: number } {
  const tier = parseTier(request.tier);
  const country = parseCountryFilter(request.country);
  const coversAll = parseCoversAll(request.coversAll ?? []);
  const page = parsePage(request.page);
  const matching = cache.activeFor(tier, country).filter(({ plan }) => coversAll.every((code) => plan.countries.includes(code)));
  return { plans: pageOf(matching, page), total: matching.length };
}
