import { AppError, validationError } from '@esim/errors';
import { isIccid } from '@esim/ids';
import { metrics, type Logger } from '@esim/telemetry';
import type { Upstreams } from './upstreams.js';

const suspensions = metrics.getMeter('provisioning').createCounter('provisioning_suspensions_total', { description: 'Suspensions and resumptions asked of the connectivity provider, by outcome' });

export type SuspensionOutcome = { done: true; suspended: boolean } | { done: false; detail: string };

/**
 * The orders service suspends or resumes an eSIM (contract §13): the
 * connectivity provider stops or restarts its data. Synchronous (the
 * partner waits); idempotent at the provider. A refusal (unknown, revoked)
 * is an outcome; a transient failure is UNAVAILABLE, nothing changed.
 */
export async function setSuspended(deps: { upstreams: Upstreams; logger: Logger }, request: { iccid: string; suspended: boolean }): Promise<SuspensionOutcome> {
  if (!isIccid(request.iccid)) throw validationError([{ path: 'iccid', message: 'must be 18–22 digits' }]);
  const result = await deps.upstreams.connectivityFor('').setSuspended(request);
  suspensions.add(1, { outcome: result.kind === 'transient' ? result.cause : result.kind, suspended: String(request.suspended) });
  const log = deps.logger.child({ iccid: request.iccid, suspended: request.suspended });
  if (result.kind === 'done') {
    log.info('suspension set at the connectivity provider');
    return { done: true, suspended: result.suspended };
  }
  if (result.kind === 'refused') {
    log.info({ detail: result.detail }, 'the connectivity provider refused the suspension change');
    return { done: false, detail: result.detail };
  }
  log.warn({ cause: result.cause, detail: result.detail }, 'the connectivity provider could not be reached for a suspension change');
  throw new AppError('UNAVAILABLE', 'The connectivity provider could not be reached; retry shortly.');
}
