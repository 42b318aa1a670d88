import { setTimeout as sleep } from 'node:timers/promises';
import { AppError, validationError } from '@esim/errors';
import { isAccountId, livemodeOf } from '@esim/ids';
import type { SimulatedEsim, TestEsimAction } from '../clients/provisioning.js';
import type { OrdersDeps } from '../domain/deps.js';
import { findEsimState } from '../store/esimStore.js';
import type { EsimState } from './esim.js';
import { getEsim } from './esimReads.js';

/** Kept of the caller's deadline for the answer to travel back. */
const answerMarginMs = 500;
/** Without a caller's deadline, the wait for the notifications' effects is bounded by this. */
const maxWaitMs = 10_000;
const pollMs = 50;

/**
 * Test mode's helpers (contract §14): the test-mode simulator plays the
 * traveller on one of a test account's eSIMs — installs it, uses data,
 * expires the active bundle, deletes the profile — through provisioning,
 * which owns every upstream call. The simulator answers once the platform
 * accepted its notifications (202); their effects on the eSIM (the
 * connectivity provider's are applied as they are recorded, the SM-DP+'s
 * ES2+ reports through provisioning's event) may still be on their way, so
 * the eSIM is read until it shows what the simulator reports, bounded by the
 * caller's deadline; the partner's receiver gets esim.installed,
 * esim.usage_threshold, esim.bundle_expired or esim.deleted as in live. Past
 * the bound, the eSIM is answered as it stands (the effects still follow).
 * A live account is TEST_MODE_ONLY; an unknown or another account's ICCID
 * (a live eSIM included) is ESIM_NOT_FOUND, before the simulator is asked.
 */
export async function driveTestEsim(
  deps: OrdersDeps,
  request: { partnerId: string; iccid: string; action: TestEsimAction },
  deadline = Infinity,
): Promise<EsimState> {
  if (!isAccountId(request.partnerId)) throw validationError([{ path: 'partnerId', message: 'must be an account id' }]);
  if (livemodeOf(request.partnerId)) throw new AppError('TEST_MODE_ONLY', 'Test helpers act on test-mode eSIMs only; use a test key.');
  if (request.action.kind === 'usage' && !(Number.isInteger(request.action.addMb) && request.action.addMb > 0)) {
    throw validationError([{ path: 'addMb', message: 'must be a positive integer (megabytes)' }]);
  }
  await getEsim(deps.pool, request);
  const simulated = await deps.provisioning.controlTestEsim({
    accountId: request.partnerId,
    iccid: request.iccid,
    action: request.action,
    ...(Number.isFinite(deadline) ? { deadline } : {}),
  });
  const waitUntil = Math.min(Number.isFinite(deadline) ? deadline - answerMarginMs : Infinity, Date.now() + maxWaitMs);
  for (;;) {
    const state = (await findEsimState(deps.pool, request.iccid))!;
    if (shows(state, simulated)) return state;
    if (Date.now() + pollMs >= waitUntil) {
      deps.logger.warn({ iccid: request.iccid, action: request.action.kind, simulated: simulated.status }, 'test helper: the eSIM did not show the simulator\'s state within the deadline; answering it as it stands');
      return state;
    }
    await sleep(pollMs);
  }
}

/**
 * True once the eSIM shows what the simulator reports: its installed or
 * deleted status, each bundle's use, and each bundle's end (depleted,
 * expired). A bundle's start is not compared: the simulator may count one
 * active at installation, the platform at its first use (§13).
 */
function shows({ esim, bundles }: EsimState, simulated: SimulatedEsim): boolean {
  if ((simulated.status === 'installed' || simulated.status === 'deleted') && esim.status !== simulated.status) return false;
  for (const simBundle of simulated.bundles) {
    const bundle = bundles.find((candidate) => candidate.orderId === simBundle.reference);
    if (!bundle) continue;
    if (bundle.dataUsedMb < simBundle.dataUsedMb) return false;
    if ((simBundle.status === 'depleted' || simBundle.status === 'expired') && bundle.status !== simBundle.status) return false;
  }
  return true;
}
