import { AppError, validationError, type FieldError } from '@esim/errors';
import { isIccid, isId } from '@esim/ids';
import type { Pool } from '@esim/postgres';
import { metrics, type Logger } from '@esim/telemetry';
import { findSmdpOrder } from '../store/smdpOrders.js';
import { cancelAtSmdp } from './obtainEsim.js';
import type { Upstreams } from './upstreams.js';

const revokes = metrics.getMeter('provisioning').createCounter('provisioning_revokes_total', { description: 'Bundle revocations asked of the supplier, by outcome' });

export type RevokeOutcome = { revoked: true } | { revoked: false; detail: string } | { revoked: 'unconfirmed'; detail: string };

/** Kept of the caller's deadline for the answer to travel back: the supplier call ends strictly before the caller stops waiting. */
const answerMarginMs = 500;

/** Network failures that happen before a request leaves: nothing reached the supplier. */
const notSent = /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH/;

/**
 * The orders service cancels an order: the connectivity provider revokes
 * its bundle (for a first bundle, the whole subscription), then, for a
 * first bundle, the SM-DP+ cancels the never-downloaded profile (ES2+
 * CancelOrder, finalProfileStatusIndicator Unavailable). Synchronous,
 * because the partner waits for the answer; idempotent at both (a revoked
 * bundle answers revoked again; CancelOrder is retried under the same call
 * id and a cancelled order is not asked again), so the cancel saga may
 * repeat it after a crash. A refusal (used, installed, unknown) is an
 * outcome; a provider that could not be reached (nothing sent) or answered
 * "try later" is UNAVAILABLE, nothing changed; a request sent whose answer
 * did not come back (a timeout, a connection lost) is `unconfirmed`: it may
 * have revoked, and the caller must keep its intent and ask again (#23). The
 * provider call is bounded by the caller's deadline less a margin, so the
 * caller always hears which. The SM-DP+
 * refusing for good (the profile was downloaded meanwhile) is logged: the
 * bundle is revoked and the cancellation stands.
 */
export async function revokeBundle(
  deps: { upstreams: Upstreams; pool: Pool; logger: Logger },
  request: { reference: string; iccid: string; firstBundle: boolean },
  /** When the caller stops waiting (epoch ms; Infinity: no deadline). */
  deadline = Infinity,
): Promise<RevokeOutcome> {
  const errors: FieldError[] = [];
  if (!isId('ord', request.reference)) errors.push({ path: 'reference', message: 'must be the bundle\'s order id (ord_…)' });
  if (!isIccid(request.iccid)) errors.push({ path: 'iccid', message: 'must be 18–22 digits' });
  if (errors.length > 0) throw validationError(errors);
  const log = deps.logger.child({ orderId: request.reference, firstBundle: request.firstBundle });
  const smdpOrder = request.firstBundle ? await findSmdpOrder(deps.pool, request.reference) : undefined;
  const timeoutMs = Number.isFinite(deadline) ? deadline - Date.now() - answerMarginMs : undefined;
  if (timeoutMs !== undefined && timeoutMs <= 0) throw new AppError('UNAVAILABLE', 'No time was left to ask the supplier to revoke the bundle; nothing changed, retry shortly.');
  const result = await deps.upstreams.connectivityFor(smdpOrder?.profileType ?? '').revokeBundle({ reference: request.reference, timeoutMs });
  revokes.add(1, { outcome: result.kind === 'transient' ? result.cause : result.kind });
  if (result.kind === 'revoked') {
    log.info('bundle revoked at the connectivity provider');
    if (smdpOrder && smdpOrder.state !== 'cancelled') {
      const smdp = deps.upstreams.smdpFor(smdpOrder.profileType);
      const cancelled = await cancelAtSmdp({ upstreams: deps.upstreams, pool: deps.pool, logger: log }, smdp, request.reference, 'Unavailable');
      if (cancelled === 'transient') {
        throw new AppError('UNAVAILABLE', 'The SM-DP+ could not be reached to cancel the profile; retry shortly.');
      }
    }
    return { revoked: true };
  }
  if (result.kind === 'refused') {
    log.info({ detail: result.detail, statusCode: result.statusCode }, 'the supplier refused to revoke the bundle');
    return { revoked: false, detail: result.detail };
  }
  if (result.cause === 'timeout' || result.cause === 'bad_response' || (result.cause === 'network_error' && !notSent.test(result.detail))) {
    log.warn({ cause: result.cause, detail: result.detail }, 'the supplier did not confirm the revoke; it may have revoked the bundle');
    return { revoked: 'unconfirmed', detail: result.detail };
  }
  log.warn({ cause: result.cause, detail: result.detail }, 'the supplier could not revoke the bundle now');
  throw new AppError('UNAVAILABLE', 'The supplier could not be reached to revoke the bundle; retry shortly.');
}
