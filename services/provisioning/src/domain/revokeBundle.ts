import { AppError, validationError, type FieldError } from '@esim/errors';
import { isId } from '@esim/ids';
import { metrics, type Logger } from '@esim/telemetry';
import type { SupplierClient } from '../supplier/supplierClient.js';

const revokes = metrics.getMeter('provisioning').createCounter('provisioning_revokes_total', { description: 'Bundle revocations asked of the supplier, by outcome' });

export type RevokeOutcome = { revoked: true } | { revoked: false; detail: string } | { revoked: 'unconfirmed'; detail: string };

/** Kept of the caller's deadline for the answer to travel back: the supplier call ends strictly before the caller stops waiting. */
const answerMarginMs = 500;

/** Network failures that happen before a request leaves: nothing reached the supplier. */
const notSent = /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH/;

/**
 * The orders service cancels an order: the supplier revokes its bundle (for
 * a first bundle, the whole eSIM). Synchronous, because the partner waits
 * for the answer; idempotent at the supplier (a revoked bundle answers
 * revoked again), so the cancel saga may repeat it after a crash. A refusal
 * (used, installed, unknown) is an outcome; a supplier that could not be
 * reached (nothing sent) or answered "try later" is UNAVAILABLE, nothing
 * changed; a request sent whose answer did not come back (a timeout, a
 * connection lost) is `unconfirmed`: it may have revoked, and the caller must
 * keep its intent and ask again (#23). The supplier call is bounded by the
 * caller's deadline less a margin, so the caller always hears which.
 */
export async function revokeBundle(
  deps: { supplier: SupplierClient; logger: Logger },
  request: { reference: string; iccid: string; firstBundle: boolean },
  /** When the caller stops waiting (epoch ms; Infinity: no deadline). */
  deadline = Infinity,
): Promise<RevokeOutcome> {
  const errors: FieldError[] = [];
  if (!isId('ord', request.reference)) errors.push({ path: 'reference', message: 'must be the bundle\'s order id (ord_…)' });
  if (!/^\d{18,22}$/.test(request.iccid)) errors.push({ path: 'iccid', message: 'must be 18–22 digits' });
  if (errors.length > 0) throw validationError(errors);
  const log = deps.logger.child({ orderId: request.reference, firstBundle: request.firstBundle });
  const timeoutMs = Number.isFinite(deadline) ? deadline - Date.now() - answerMarginMs : undefined;
  if (timeoutMs !== undefined && timeoutMs <= 0) throw new AppError('UNAVAILABLE', 'No time was left to ask the supplier to revoke the bundle; nothing changed, retry shortly.');
  const result = await deps.supplier.revokeBundle({ reference: request.reference, timeoutMs });
  revokes.add(1, { outcome: result.kind === 'transient' ? result.cause : result.kind });
  if (result.kind === 'revoked') {
    log.info('bundle revoked at the supplier');
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
