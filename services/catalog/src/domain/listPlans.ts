import type { PlanCache, PricedPlan } from './planCache.js';
import { parseTier } from './pricing.js';
import { pageOf, parseCountryFilter, parseCoversAll, parseGeneration, parsePage } from './requestRules.js';

/**
 * The partner catalog: active plans covering a country (every active plan
 * when none is given), local plans before regional ones, then cheapest first.
 * `coversAll` keeps only the plans covering every listed country: the plans
 * a top-up of an eSIM may use (contract §13). `generation`, `unlimited` and
 * `topUpable` keep the plans with those traveller facts (§5). `total` counts the whole
 * filtered list; a page past its end is empty.
 */
export function listPlans(
  cache: PlanCache,
  request: {
    country: string;
    tier: string;
    coversAll?: string[];
    generation?: string;
    unlimited?: boolean | undefined;
    topUpable?: boolean | undefined;
    page?: { page: number; limit: number };
  },
): { plans: PricedPlan[]; total: number } {
  const tier = parseTier(request.tier);
  const country = parseCountryFilter(request.country);
  const coversAll = parseCoversAll(request.coversAll ?? []);
  const generation = parseGeneration(request.generation ?? '');
  const page = parsePage(request.page);
  const matching = cache
    .activeFor(tier, country)
    .filter(
      ({ plan }) =>
        coversAll.every((code) => plan.countries.includes(code)) &&
        (request.unlimited === undefined || plan.unlimited === request.unlimited) &&
        (request.topUpable === undefined || plan.topUpable === request.topUpable) &&
        // With a country, the generation must be offered there; without, anywhere the plan works.
        (generation === undefined || plan.networks.some((network) => network.generations.includes(generation) && (country === undefined || network.country === country))),
    );
  return { plans: pageOf(matching, page), total: matching.length };
}
