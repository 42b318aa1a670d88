import { validationError, type AppError } from '@esim/errors';
import type { Queryable } from '@esim/postgres';
import { planIdBySku } from '../store/planStore.js';

/** The SKU is the supplier's product key: two plans selling one SKU would be ambiguous. */
export function skuTaken(owner: string | undefined): AppError {
  return validationError([{ path: 'supplierSku', message: owner ? `already used by ${owner}` : 'already used by another plan' }]);
}

/** The error naming the plan that holds `sku` now (after a failed insert or a unique violation). */
export async function skuTakenBy(db: Queryable, sku: string): Promise<AppError> {
  return skuTaken(await planIdBySku(db, sku));
}
