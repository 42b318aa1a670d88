import { AppError } from '@esim/errors';
import type { Queryable } from '@esim/postgres';
import type { EsimStatus } from '@esim/vocabulary';
import { findEsimState, listEsimStates } from '../store/esimStore.js';
import { iccidPattern, type EsimState } from './esim.js';
import { modeFilter, parsePage } from '../domain/requestRules.js';

/**
 * One eSIM with its bundles. Unknown, malformed and another partner's
 * ICCIDs all answer ESIM_NOT_FOUND (contract §13). `partnerId` '' is an
 * operator: any partner's eSIM.
 */
export async function getEsim(db: Queryable, request: { partnerId: string; iccid: string }): Promise<EsimState> {
  const state = iccidPattern.test(request.iccid) ? await findEsimState(db, request.iccid) : undefined;
  if (!state || (request.partnerId !== '' && state.esim.partnerId !== request.partnerId)) {
    throw new AppError('ESIM_NOT_FOUND', `No eSIM ${request.iccid}.`);
  }
  return state;
}

/** eSIMs newest first (§3 paging); `partnerId` '' lists every partner's (operators), of one mode: live unless `livemode` is false (§14). */
export async function listEsims(
  db: Queryable,
  request: { partnerId: string; status: EsimStatus | undefined; livemode?: boolean; page?: { page: number; limit: number } },
): Promise<{ esims: EsimState[]; total: number }> {
  const { page, limit } = parsePage(request.page);
  const filter = { ...(request.partnerId !== '' ? { partnerId: request.partnerId } : {}), ...(request.status ? { status: request.status } : {}), livemode: modeFilter(request) };
  return listEsimStates(db, filter, { limit, offset: (page - 1) * limit });
}
