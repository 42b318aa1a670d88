import { AppError, validationError } from '@esim/errors';
import type { Queryable } from '@esim/postgres';
import { findEsim } from '../store/esimStore.js';
import { findOrder } from '../store/orderStore.js';
import { iccidPattern, type EsimRecord } from '../esims/esim.js';

/**
 * The eSIM a top-up may add a bundle to (contract §13): the partner's own,
 * not cancelled, and not being cancelled (its first order's cancellation
 * checks "no top-up" under the same eSIM lock, so the two never cross).
 * Unknown, malformed and other partners' ICCIDs answer the same 404.
 */
export async function toppableEsim(db: Queryable, partnerId: string, iccid: string): Promise<EsimRecord> {
  if (!iccidPattern.test(iccid)) throw validationError([{ path: 'iccid', message: 'must be an ICCID of 18–22 digits' }]);
  const esim = await findEsim(db, iccid);
  if (!esim || esim.partnerId !== partnerId) throw new AppError('ESIM_NOT_FOUND', `No eSIM ${iccid}.`);
  if (esim.status === 'cancelled') throw notToppable(iccid, 'it was cancelled');
  const first = await findOrder(db, esim.orderId);
  // A group's eSIM: its cancellation is the group's.
  const cancelling = first?.groupOrderId ? (await findOrder(db, first.groupOrderId))?.cancelRequestedAt : first?.cancelRequestedAt;
  if (cancelling) throw notToppable(iccid, 'it is being cancelled');
  return esim;
}

/** The plan must cover every country of the eSIM's first plan. */
export function checkCompatible(esim: EsimRecord, plan: { planName: string; countries: string[] }): void {
  const missing = esim.countries.filter((country) => !plan.countries.includes(country));
  if (missing.length > 0) {
    throw new AppError('PLAN_NOT_COMPATIBLE', `Plan ${plan.planName} does not cover ${missing.join(', ')}, which eSIM ${esim.iccid} covers.`);
  }
}

function notToppable(iccid: string, why: string): AppError {
  return new AppError('ESIM_NOT_TOPPABLE', `eSIM ${iccid} cannot be topped up: ${why}.`);
}
