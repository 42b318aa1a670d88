import { AppError, validationError } from '@esim/errors';
import { isId } from '@esim/ids';
import type { Queryable } from '@esim/postgres';
import { metrics, type Logger } from '@esim/telemetry';
import { findSupplierCall } from '../store/supplierCalls.js';
import { isRejectionStatus, type SupplierClient, type SupplierEsim } from '../supplier/supplierClient.js';
import { failureReasons, type SupplierCall } from './supplierCall.js';

const answers = metrics.getMeter('provisioning').createCounter('provisioning_state_reads_total', { description: 'GetProvisioning answers, by state' });

/** What provisioning knows of one order: the facts its result event carried, or why there is none. */
export type ProvisioningView =
  | { state: 'unknown' }
  | { state: 'in_progress' }
  | { state: 'succeeded'; esim: SupplierEsim }
  | { state: 'failed'; reason: string };

/**
 * The orders service lost this order's result event (a dead letter) and
 * asks what it was. The record of the supplier call decides; for a success
 * the supplier is asked again under the order's reference, which is
 * idempotent there and answers the eSIM it issued, because provisioning keeps
 * no copy of the matching id or activation code. Read-only here: nothing is
 * published, the caller applies the answer exactly as it would the event.
 * A supplier that cannot answer now is UNAVAILABLE, safe to retry.
 */
export async function getProvisioning(deps: { db: Queryable; supplier: SupplierClient; logger: Logger }, orderId: string): Promise<ProvisioningView> {
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

async function issuedEsim(deps: { supplier: SupplierClient; logger: Logger }, call: SupplierCall): Promise<SupplierEsim> {
  const size = { ...(call.dataMb === null ? {} : { dataMb: call.dataMb }), ...(call.validityDays === null ? {} : { validityDays: call.validityDays }) };
  // A row from before the request was recorded has no kind: the supplier answers a known reference whatever was asked.
  const result =
    call.kind === 'topup' && call.targetIccid !== null
      ? await deps.supplier.addBundle({ iccid: call.targetIccid, sku: call.sku, reference: call.orderId, ...size })
      : await deps.supplier.requestEsim({ sku: call.sku, reference: call.orderId, ...size });
  if (result.kind === 'issued') return result.esim;
  const log = deps.logger.child({ orderId: call.orderId });
  if (result.kind === 'rejected') log.error({ statusCode: result.statusCode, detail: result.detail }, 'the supplier refuses to answer an eSIM it issued; an operator must look');
  else log.warn({ cause: result.cause, detail: result.detail }, 'the supplier could not answer an issued eSIM now');
  throw new AppError('UNAVAILABLE', 'The supplier could not confirm the eSIM now; retry shortly.');
}

/** A failure recorded before its reason was: the last status tells which of the two reasons was published. */
function legacyFailureReason(call: SupplierCall): string {
  return call.lastStatusCode !== null && isRejectionStatus(call.lastStatusCode) ? failureReasons.rejected : failureReasons.retryWindowOver;
}
