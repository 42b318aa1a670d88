import { AppError } from '@esim/errors';
import type { Queryable } from '@esim/postgres';
import { lookupPlan } from './lookupPlan.js';
import type { Plan } from './plan.js';
import type { PlanCache } from './planCache.js';

/** One plan with every internal field; unknown and malformed ids alike are PLAN_NOT_FOUND. */
export async function adminGetPlan(deps: { cache: PlanCache; db: Queryable }, id: string): Promise<Plan> {
  const plan = await lookupPlan(deps, id);
  if (!plan) throw new AppError('PLAN_NOT_FOUND', `No plan ${id}.`);
  return plan;
}
