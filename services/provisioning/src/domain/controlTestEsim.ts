import { AppError, validationError } from '@esim/errors';
import { isAccountId, isIccid, livemodeOf } from '@esim/ids';
import { metrics, type Logger } from '@esim/telemetry';
import type { SimulatedEsim, SimulatorControl, TestEsimAction } from '../simulator/simulatorControl.js';

const controls = metrics.getMeter('provisioning').createCounter('provisioning_test_controls_total', { description: 'Test helpers driven on the test-mode simulator, by action and outcome' });

/** Kept of the caller's deadline for the answer to travel back. */
const answerMarginMs = 500;
/** The simulator's own answer waits on the platform's 202s; never longer than this. */
const maxControlMs = 20_000;

/**
 * A test helper (contract §14): the traveller installs, uses data on,
 * expires or deletes a test eSIM, played by the test-mode simulator's control
 * API. Only a test account may ask, so no helper ever drives the simulator
 * for a live eSIM; the orders service has already checked the eSIM is that
 * account's. Answers the simulator's view once the platform accepted its
 * notifications; an eSIM the simulator never issued is ESIM_NOT_FOUND.
 */
export async function controlTestEsim(
  deps: { control: SimulatorControl; logger: Logger },
  request: { accountId: string; iccid: string; action: TestEsimAction },
  deadline = Infinity,
): Promise<SimulatedEsim> {
  if (!isAccountId(request.accountId)) throw validationError([{ path: 'accountId', message: 'must be an account id (ptn_…_test)' }]);
  if (livemodeOf(request.accountId)) throw new AppError('TEST_MODE_ONLY', 'Test helpers act on test-mode eSIMs only.');
  if (!isIccid(request.iccid)) throw new AppError('ESIM_NOT_FOUND', `No eSIM ${request.iccid}.`);
  if (request.action.kind === 'usage' && !(Number.isInteger(request.action.addMb) && request.action.addMb > 0)) {
    throw validationError([{ path: 'addMb', message: 'must be a positive integer (megabytes)' }]);
  }
  const left = Number.isFinite(deadline) ? deadline - Date.now() - answerMarginMs : maxControlMs;
  if (left <= 0) throw new AppError('UNAVAILABLE', 'No time was left to drive the simulator; retry.');
  const result = await deps.control.act(request.iccid, request.action, Math.min(left, maxControlMs));
  controls.add(1, { action: request.action.kind, outcome: result.kind });
  const log = deps.logger.child({ iccid: request.iccid, action: request.action.kind });
  if (result.kind === 'not_found') throw new AppError('ESIM_NOT_FOUND', `No eSIM ${request.iccid}.`);
  if (result.kind === 'unavailable') {
    log.warn({ detail: result.detail }, 'the test-mode simulator could not act');
    throw new AppError('UNAVAILABLE', 'The test-mode simulator could not act now; retry shortly.');
  }
  log.info({ status: result.esim.status }, 'test-mode simulator acted');
  return result.esim;
}
