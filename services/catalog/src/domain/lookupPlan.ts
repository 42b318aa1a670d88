import { isId } from '@esim/ids';
import type { Queryable } from '@esim/postgres';
import { findPlan } from '../store/planStore.js';
import type { Plan } from './plan.js';
import type { PlanCache } from './planCache.js';

/**
 * A plan by id, from memory. A miss on a well-formed id is checked against
 * Postgres once: a plan another replica created a moment ago (its change
 * event still in flight) is found rather than reported missing. Malformed
 * ids never reach the database.
 */
export async function lookupPlan(deps: { cache: PlanCache; db: Queryable }, id: string): Promise<Plan | undefined> {
  if (!isId('plan', id)) return undefined;
  return deps.cache.get(id) ?? (await findPlan(deps.db, id));
}
