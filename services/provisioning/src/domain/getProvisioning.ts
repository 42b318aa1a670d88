import { AppError, validationError } from '@esim/errors';
import { isId } from '@esim/ids';
import type { Queryable } from '@esim/postgres';
import { metrics, type Logger } from '@esim/telemetry';
import { findSupplierCall } from '../store/supplierCalls.js';
import { isRejectionStatus } from '../connectivity/connectivityClient.js';
import { activationCodeOf } from '../smdp/smdp.js';
import { findReleasedByIccid, findSmdpOrder } from '../store/smdpOrders.js';
import type { IssuedEsim } from './obtainEsim.js';
import type { Upstreams } from './upstreams.js';
import { failureReasons, type SupplierCall } from './supplierCall.js';

const answers = metrics.getMeter('provisioning').createCounter('provisioning_state_reads_total', { description: 'GetProvisioning answers, by state' });

/** What provisioning knows of one order: the facts its result event carried, or why there is none. */
export type ProvisioningView =
  | { state: 'unknown' }
  | { state: 'in_progress' }
  | { state: 'succeeded'; esim: IssuedEsim }
  | { state: 'failed'; reason: string };

/**
 * The orders service lost this order's result event (a dead letter) and
 * asks what it was. The record of the supplier call decides; for a success
 * the eSIM is the profile the SM-DP+ released for the order (kept in
 * smdp_orders: ES2+ has no function to read it again), for a top-up that of
 * its eSIM, or, for an eSIM older than the SM-DP+ split, the profile the
 * connectivity provider answers when asked again under the order's
 * reference (idempotent there). Read-only here: nothing is published, the
 * caller applies the answer exactly as it would the event. An upstream that
 * cannot answer now is UNAVAILABLE, safe to retry.
 */
export async function getProvisioning(deps: { db: Queryable; upstreams: Upstreams; logger: Logger }, orderId: string): Promise<ProvisioningView> {
  if (!isId('ord', orderId)) throw validationError([{ path: 'orderId', message: "must be an order id (ord_…)" }]);
  const call = await findSupplierCall(deps.db, orderId);
  const view: ProvisioningView = !call
    ? { state: 'unknown' }
    : call.state === 'pending'
      ? { state: 'in_progress' }
      : call.state === 'failed'
        ? { state: 'failed', reason: call.failureReason ?? legacyFailureReason(call) }
        : { state: 'succeeded', esim: await issuedEsim(deps, call) };
  answers.add(1, { state: view.state });
  return view;
}

async function issuedEsim(deps: { db: Queryable; upstreams: Upstreams; logger: Logger }, call: SupplierCall): Promise<IssuedEsim> {
  const topUp = call.kind === 'topup' && call.targetIccid !== null;
  const released = topUp ? await findReleasedByIccid(deps.db, call.targetIccid!) : await findSmdpOrder(deps.db, call.orderId);
  if (released?.state === 'released' && released.iccid && released.matchingId && released.smdpAddress) {
    const { iccid, smdpAddress, matchingId } = released;
    return { reference: call.orderId, iccid, smdpAddress, matchingId, activationCode: activationCodeOf(smdpAddress, matchingId) };
  }
  const size = { ...(call.dataMb === null ? {} : { dataMb: call.dataMb }), ...(call.validityDays === null ? {} : { validityDays: call.validityDays }) };
  const log = deps.logger.child({ orderId: call.orderId });
  if (!topUp) {
    log.error('a succeeded order has no released SM-DP+ profile recorded; an operator must look');
    throw new AppError('UNAVAILABLE', 'The eSIM could not be confirmed now; retry shortly.');
  }
  const result = await deps.upstreams
    .connectivityFor(call.sku)
    .addBundle({ iccid: call.targetIccid!, sku: call.sku, reference: call.orderId, ...size });
  if (result.kind === 'added' && result.bundle.profile) return { reference: call.orderId, iccid: result.bundle.iccid, ...result.bundle.profile };
  if (result.kind === 'rejected') log.error({ statusCode: result.statusCode, detail: result.detail }, 'the provider refuses to answer a bundle it added; an operator must look');
  else log.warn({ kind: result.kind }, 'the provider could not answer an added bundle now');
  throw new AppError('UNAVAILABLE', 'The supplier could not confirm the eSIM now; retry shortly.');
}

/** A failure recorded before its reason was: the last status tells which of the two reasons was published. */
function legacyFailureReason(call: SupplierCall): string {
  return call.lastStatusCode !== null && isRejectionStatus(call.lastStatusCode) ? failureReasons.rejected : failureReasons.retryWindowOver;
}
