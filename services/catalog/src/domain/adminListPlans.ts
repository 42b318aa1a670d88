import type { Plan } from './plan.js';
import type { PlanCache } from './planCache.js';
import { pageOf, parseCountryFilter, parsePage } from './requestRules.js';

/**
 * Every plan for operators, newest first (created_at descending, then id
 * descending), optionally only active or only inactive ones (`active`
 * undefined lists both) and only those covering a country.
 */
export function adminListPlans(
  cache: PlanCache,
  request: { active?: boolean | undefined; country: string; page?: { page: number; limit: number } | undefined },
): { plans: Plan[]; total: number } {
  const country = parseCountryFilter(request.country);
  const page = parsePage(request.page);
  const matching = cache.all({ active: request.active, country });
  return { plans: pageOf(matching, page), total: matching.length };
}
