import type { Pool } from '@esim/postgres';
import type { Logger } from '@esim/telemetry';
import type { BundleSize, ConnectivityPort } from '../connectivity/connectivityClient.js';
import { activationCodeOf, type SmdpFailure, type SmdpPort } from '../smdp/smdp.js';
import { findReleasedByIccid, findSmdpOrder, markCancelled, markDownloaded, markReleased, openSmdpOrder } from '../store/smdpOrders.js';
import type { Upstreams } from './upstreams.js';

/** The eSIM an order ends with: what provisioning.succeeded carries. */
export interface IssuedEsim {
  reference: string;
  iccid: string;
  smdpAddress: string;
  matchingId: string;
  activationCode: string;
}

export type TransientCause = 'unavailable' | 'throttled' | 'timeout' | 'network_error' | 'bad_response' | 'tls_error' | 'refused';

/** One attempt's outcome, sorted into what the use case must do with it. */
export type ObtainResult =
  | { kind: 'issued'; statusCode: number; esim: IssuedEsim }
  | { kind: 'rejected'; statusCode: number | null; detail: string }
  | { kind: 'transient'; cause: TransientCause; statusCode: number | null; detail: string };

export interface ObtainDeps {
  upstreams: Upstreams;
  /** Its own connection: what the SM-DP+ answered must survive the consumer's transaction rolling back. */
  pool: Pool;
  logger: Logger;
}

const smdpFailure = (failure: SmdpFailure, step: string): ObtainResult =>
  failure.kind === 'permanent'
    ? { kind: 'rejected', statusCode: failure.statusCode, detail: `SM-DP+ ${step}: ${failure.detail}` }
    : { kind: 'transient', cause: failure.cause, statusCode: failure.statusCode, detail: `SM-DP+ ${step}: ${failure.detail}` };

/**
 * A new eSIM (contract §8): ES2+ DownloadOrder with the plan's profile type,
 * ConfirmOrder with releaseFlag true, then the connectivity provider adds
 * the first bundle on that ICCID under the order id. Each step's result is
 * written on its own connection before the next step starts, and each call
 * reuses the call id chosen for it, so any attempt after a crash or a lost
 * answer resumes where the last one got to: the same call again (the
 * SM-DP+ recognises its functionCallIdentifier), never a second profile.
 * A permanent refusal after a profile was reserved cancels it at the SM-DP+
 * (best effort) so no profile is orphaned.
 */
export async function obtainNewEsim(
  deps: ObtainDeps,
  request: { orderId: string; accountId: string; sku: string; profileType: string } & BundleSize,
): Promise<ObtainResult> {
  const { orderId, accountId, sku, profileType, ...size } = request;
  const smdp = deps.upstreams.smdpFor(profileType);
  const connectivity = deps.upstreams.connectivityFor(sku);
  let order = await openSmdpOrder(deps.pool, orderId, profileType, accountId);
  if (order.state === 'cancelled') return { kind: 'rejected', statusCode: null, detail: 'the SM-DP+ order was cancelled' };

  if (order.iccid === null) {
    const downloaded = await smdp.downloadOrder({ callId: order.downloadCallId, profileType: order.profileType });
    if (downloaded.kind !== 'ok') return smdpFailure(downloaded, 'DownloadOrder');
    await markDownloaded(deps.pool, orderId, downloaded.iccid);
    order = { ...order, iccid: downloaded.iccid, state: 'downloaded' };
  }
  const iccid = order.iccid!;

  if (order.state !== 'released' || order.matchingId === null || order.smdpAddress === null) {
    const confirmed = await smdp.confirmOrder({ callId: order.confirmCallId, iccid });
    if (confirmed.kind !== 'ok') {
      if (confirmed.kind === 'permanent') await cancelAtSmdp(deps, smdp, orderId, 'Available');
      return smdpFailure(confirmed, 'ConfirmOrder');
    }
    await markReleased(deps.pool, orderId, confirmed);
    order = { ...order, matchingId: confirmed.matchingId, smdpAddress: confirmed.smdpAddress, state: 'released' };
  }
  const smdpAddress = order.smdpAddress!;
  const matchingId = order.matchingId!;

  const added = await connectivity.addFirstBundle({ iccid, sku, reference: orderId, ...size });
  if (added.kind === 'rejected') {
    await cancelAtSmdp(deps, smdp, orderId, 'Unavailable');
    return { kind: 'rejected', statusCode: added.statusCode, detail: `connectivity provider: ${added.detail}` };
  }
  if (added.kind === 'transient') return { ...added, detail: `connectivity provider: ${added.detail}` };
  return {
    kind: 'issued',
    statusCode: added.statusCode,
    esim: { reference: orderId, iccid, smdpAddress, matchingId, activationCode: activationCodeOf(smdpAddress, matchingId) },
  };
}

/**
 * A top-up (contract §13): the connectivity provider adds a bundle to the
 * eSIM; its profile is the one the SM-DP+ released for it (kept here), or,
 * for an eSIM older than the SM-DP+ split, the one the provider reports.
 */
export async function obtainTopUp(deps: ObtainDeps, request: { orderId: string; iccid: string; sku: string } & BundleSize): Promise<ObtainResult> {
  const { orderId, iccid, sku, ...size } = request;
  const added = await deps.upstreams.connectivityFor(sku).addBundle({ iccid, sku, reference: orderId, ...size });
  if (added.kind === 'rejected') return { kind: 'rejected', statusCode: added.statusCode, detail: `connectivity provider: ${added.detail}` };
  if (added.kind === 'transient') return { ...added, detail: `connectivity provider: ${added.detail}` };
  const released = await findReleasedByIccid(deps.pool, iccid);
  const profile =
    released?.smdpAddress && released.matchingId
      ? { smdpAddress: released.smdpAddress, matchingId: released.matchingId, activationCode: activationCodeOf(released.smdpAddress, released.matchingId) }
      : added.bundle.profile;
  if (!profile) return { kind: 'transient', cause: 'bad_response', statusCode: added.statusCode, detail: `no profile known for eSIM ${iccid}` };
  return { kind: 'issued', statusCode: added.statusCode, esim: { reference: orderId, iccid, ...profile } };
}

/**
 * An order that will not complete gives its reserved profile back: ES2+
 * CancelOrder under the order's own call id (a retry is the same call).
 * Best effort: a failure is logged, and the order's failure stands.
 */
export async function cancelAtSmdp(
  deps: ObtainDeps,
  smdp: SmdpPort,
  orderId: string,
  finalProfileStatusIndicator: 'Available' | 'Unavailable',
): Promise<'cancelled' | 'nothing_to_cancel' | 'refused' | 'transient'> {
  const order = await findSmdpOrder(deps.pool, orderId);
  if (!order || order.iccid === null) return 'nothing_to_cancel';
  if (order.state === 'cancelled') return 'cancelled';
  const result = await smdp.cancelOrder({
    callId: order.cancelCallId,
    iccid: order.iccid,
    ...(order.matchingId ? { matchingId: order.matchingId } : {}),
    finalProfileStatusIndicator,
  });
  if (result.kind === 'ok') {
    await markCancelled(deps.pool, orderId);
    deps.logger.info({ orderId, iccid: order.iccid, finalProfileStatusIndicator }, 'SM-DP+ order cancelled');
    return 'cancelled';
  }
  deps.logger.warn({ orderId, iccid: order.iccid, kind: result.kind, detail: result.detail }, 'the SM-DP+ did not cancel the order');
  return result.kind === 'permanent' ? 'refused' : 'transient';
}
