import { validationError } from '@esim/errors';
import type { Plan } from './plan.js';
import type { PlanCache } from './planCache.js';
import { pageOf, parseCountryFilter, parsePage } from './requestRules.js';

/**
 * Every plan for operators, newest first (created_at descending, then id
 * descending), optionally only active ('true') or inactive ('false') ones
 * and only those covering a country.
 */
export function adminListPlans(cache: PlanCache, request: { active: string; country: string; page?: { page: number; limit: number } }): { plans: Plan[]; total: number } {
  const active = parseActiveFilter(request.active);
  const country = parseCountryFilter(request.country);
  const page = parsePage(request.page);
  const matching = cache.all({ active, country });
  return { plans: pageOf(matching, page), total: matching.length };
}

function parseActiveFilter(value: string): boolean | undefined {
  if (value === '') return undefined;
  if (value === 'true' || value === 'false') return value === 'true';
  throw validationError([{ path: 'active', message: 'must be true or false' }]);
}
