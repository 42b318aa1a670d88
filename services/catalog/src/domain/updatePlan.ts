import { AppError } from '@esim/errors';
import { isId } from '@esim/ids';
import { pgErrorCode, withTransaction, type Pool } from '@esim/postgres';
import { findPlan, planIdBySku, updatePlanRow } from '../store/planStore.js';
import { skuTaken, skuTakenBy } from './duplicateSku.js';
import { planFieldNames, type Plan, type PlanFields, type PlanPatch } from './plan.js';
import type { PlanCache } from './planCache.js';
import { recordPlanChange, type AuditContext } from './planEvents.js';
import { checkPlanFields, checkPlanShape, normalizePatch } from './planRules.js';

/**
 * An operator changes some fields of a plan (deactivation is `active: false`).
 * The row is locked, the patch validated and merged, and the change stored
 * with its audit entry and change event in one transaction; then this
 * replica's memory is reloaded, so the change shows here at once.
 */
export async function updatePlan(deps: { pool: Pool; cache: PlanCache }, id: string, input: PlanPatch, audit: AuditContext): Promise<Plan> {
  if (!isId('plan', id)) throw notFound(id);
  const patch = normalizePatch(input);
  checkPlanFields(patch, 'update');
  let plan: Plan;
  try {
    plan = await withTransaction(deps.pool, async (db) => {
      const current = await findPlan(db, id, { forUpdate: true });
      if (!current) throw notFound(id);
      if (patch.supplierSku !== undefined && patch.supplierSku !== current.supplierSku) {
        const owner = await planIdBySku(db, patch.supplierSku);
        if (owner !== undefined) throw skuTaken(owner);
      }
      const changes = changedFields(current, patch);
      checkPlanShape({ ...current, ...changes });
      // Every call is audited, even one that changes nothing; only real changes touch the row.
      const updated = Object.keys(changes).length > 0 ? await updatePlanRow(db, id, { ...current, ...changes } as PlanFields) : current;
      await recordPlanChange(db, { action: 'plan.updated', plan: updated, details: changes, audit });
      return updated;
    });
  } catch (error) {
    // Another operator took the SKU between our check and our write.
    if (pgErrorCode(error) === '23505' && patch.supplierSku !== undefined) throw await skuTakenBy(deps.pool, patch.supplierSku);
    throw error;
  }
  await deps.cache.refreshAfterWrite();
  return plan;
}

/** The patch's fields whose values differ from the plan's. */
function changedFields(current: Plan, patch: PlanPatch): PlanPatch {
  const changes: Record<string, unknown> = {};
  for (const field of planFieldNames) {
    const next = patch[field];
    if (next === undefined) continue;
    const same = typeof next === 'object' && next !== null ? JSON.stringify(next) === JSON.stringify(current[field]) : next === current[field];
    if (!same) changes[field] = next;
  }
  return changes as PlanPatch;
}

function notFound(id: string): AppError {
  return new AppError('PLAN_NOT_FOUND', `No plan ${id}.`);
}
