import { enqueueEvent } from '@esim/events';
import { AppError } from '@esim/errors';
import { withTransaction } from '@esim/postgres';
import type { OrdersDeps } from '../domain/deps.js';
import type { EsimState } from './esim.js';
import { getEsim } from './esimReads.js';
import { partnerEsimViewOf } from '../domain/partnerView.js';
import { findEsimState, lockEsimKey, saveEsim } from '../store/esimStore.js';
import { schema } from '../store/orderStore.js';

const notSuspendable = (iccid: string, status: string) =>
  new AppError('ESIM_NOT_SUSPENDABLE', `eSIM ${iccid} is ${status}; only a released or installed eSIM can be suspended or resumed.`);

/**
 * Contract §13 suspension (a lost or stolen device): the connectivity
 * provider stops (or restarts) data on the eSIM, then the eSIM records it
 * and `esim.suspended` (or `esim.resumed`) is written, in one transaction
 * under the eSIM's lock. Asking for the state it is already in answers the
 * eSIM and changes nothing; a cancelled or deleted eSIM is
 * ESIM_NOT_SUSPENDABLE; a provider that cannot be reached is UNAVAILABLE
 * with nothing changed (the provider's call is idempotent, so a retry is
 * safe). The provider is called outside any transaction.
 */
export async function setEsimSuspended(deps: OrdersDeps, request: { partnerId: string; iccid: string; suspended: boolean }): Promise<EsimState> {
  const { iccid, suspended } = request;
  const before = await getEsim(deps.pool, request);
  if (before.esim.status === 'cancelled' || before.esim.status === 'deleted') throw notSuspendable(iccid, before.esim.status);
  if (before.esim.suspended === suspended) return before;

  let outcome: Awaited<ReturnType<OrdersDeps['provisioning']['setSuspended']>>;
  try {
    outcome = await deps.provisioning.setSuspended({ accountId: before.esim.partnerId, iccid, suspended });
  } catch (error) {
    deps.logger.warn({ err: error, iccid, suspended }, 'suspension change not made: the connectivity provider or provisioning is unreachable');
    throw error instanceof AppError && error.code === 'UNAVAILABLE'
      ? error
      : new AppError('UNAVAILABLE', 'The connectivity provider could not be reached; nothing changed, retry shortly.', { cause: error });
  }
  if (!outcome.done) {
    deps.logger.warn({ iccid, suspended, detail: outcome.detail }, 'the connectivity provider refused the suspension change');
    throw new AppError('ESIM_NOT_SUSPENDABLE', `The connectivity provider cannot change eSIM ${iccid} (${outcome.detail}).`);
  }

  return withTransaction(deps.pool, async (db) => {
    await lockEsimKey(db, iccid);
    const state = (await findEsimState(db, iccid))!;
    const { esim } = state;
    if (esim.suspended === suspended || esim.status === 'cancelled' || esim.status === 'deleted') return state;
    esim.suspended = suspended;
    esim.updatedAt = new Date();
    await saveEsim(db, esim);
    await enqueueEvent(db, schema, 'partner.notification', {
      partnerId: esim.partnerId,
      // The eSIM's first order id: one eSIM's events are delivered in order (§9).
      orderId: esim.orderId,
      type: suspended ? 'esim.suspended' : 'esim.resumed',
      payload: { esim: partnerEsimViewOf(state) },
    });
    deps.logger.info({ iccid, suspended }, suspended ? 'eSIM suspended' : 'eSIM resumed');
    return state;
  });
}
