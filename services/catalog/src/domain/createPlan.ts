import { newId } from '@esim/ids';
import { withTransaction, type Pool } from '@esim/postgres';
import { insertPlan } from '../store/planStore.js';
import { skuTakenBy } from './duplicateSku.js';
import { travellerDefaults, type Plan, type PlanFields, type PlanPatch } from './plan.js';
import type { PlanCache } from './planCache.js';
import { recordPlanChange, type AuditContext } from './planEvents.js';
import { checkPlanFields, checkPlanShape, normalizePatch } from './planRules.js';

/**
 * An operator adds a plan. It is validated, stored with its audit entry and
 * change event in one transaction, and this replica's memory is reloaded
 * before answering, so the plan is listed here as soon as the call returns.
 */
export async function createPlan(deps: { pool: Pool; cache: PlanCache }, input: PlanPatch, audit: AuditContext): Promise<Plan> {
  const patch = normalizePatch(input);
  const fields: PlanPatch = { ...travellerDefaults, dataMb: null, ...patch, region: patch.region ?? null, active: patch.active ?? true };
  checkPlanFields(fields, 'create');
  checkPlanShape(fields as PlanFields);
  const plan = await withTransaction(deps.pool, async (db) => {
    const inserted = await insertPlan(db, newId('plan'), fields as PlanFields);
    if (!inserted) throw await skuTakenBy(db, fields.supplierSku as string);
    await recordPlanChange(db, { action: 'plan.created', plan: inserted, details: { ...fields }, audit });
    return inserted;
  });
  await deps.cache.refreshAfterWrite();
  return plan;
}
