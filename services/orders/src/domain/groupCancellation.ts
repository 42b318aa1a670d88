import { AppError } from '@esim/errors';
import { enqueueEvent } from '@esim/events';
import { withTransaction, type Queryable } from '@esim/postgres';
import { clearCancelRequested, markCancelled, openTopUpIds } from '../store/cancelStore.js';
import { findEsimState, lockEsimKey, saveBundle, saveEsim } from '../store/esimStore.js';
import { unitOrdersOf } from '../store/groupStore.js';
import { findOrder, schema } from '../store/orderStore.js';
import type { Cancellation } from './completeCancellation.js';
import type { OrdersDeps } from './deps.js';
import { withGroupEsims } from './groupOrders.js';
import { modeOf, ordersCancelled } from './metrics.js';
import type { Order, VisibleOrder } from './order.js';
import { partnerOrderViewOf } from './partnerView.js';

/** Revokes run this many at a time: a group of 50 fits the cancel route's deadline without a burst of 50 at the supplier. */
const revokeConcurrency = 8;

/**
 * Contract §7: a group order is cancelled only as a whole, and only while
 * none of its eSIMs is installed or used (nor topped up); checked under the
 * group's lock with each eSIM's lock taken in turn.
 */
export async function checkGroupCancellable(db: Queryable, group: Order, refuse: (why: string) => never): Promise<void> {
  if (group.status !== 'provisioned' && group.status !== 'partially_provisioned') {
    refuse(`it is ${group.status}; only a provisioned group order can be cancelled`);
  }
  for (const unit of (await unitOrdersOf(db, group.id)).filter((candidate) => candidate.status === 'provisioned')) {
    const iccid = unit.iccid;
    if (iccid === null) continue;
    await lockEsimKey(db, iccid);
    const state = await findEsimState(db, iccid);
    const bundle = state?.bundles.find((candidate) => candidate.orderId === unit.id);
    if (!state || !bundle) refuse(`its eSIM ${iccid} is not recorded`);
    if (bundle.dataUsedMb > 0 || bundle.status === 'depleted') refuse(`the data of its eSIM ${iccid} has been used`);
    if (state.esim.status === 'installed') refuse(`its eSIM ${iccid} is installed on a device`);
    const topUps = await openTopUpIds(db, iccid);
    if (topUps.length > 0) refuse(`its eSIM ${iccid} has a top-up that is not cancelled (${topUps.join(', ')})`);
  }
}

/**
 * Steps 2–4 of the cancel saga for a group: every eSIM revoked at the
 * supplier (idempotent per unit, a few at a time), then one refund of what
 * was paid net of an earlier refund of missing units, then one transaction
 * recording the group, its units, their bundles and eSIMs cancelled and
 * order.cancelled. If no revoke went through, nothing changed (the flag is
 * cleared as for a single order); once one has, the flag stays and the
 * cancel sweeper (or a retry) finishes the rest.
 */
export async function completeGroupCancellation(
  deps: OrdersDeps,
  group: VisibleOrder,
  options: { via: 'request' | 'sweeper'; clearOnFailure: boolean },
): Promise<Cancellation> {
  const units = (await unitOrdersOf(deps.pool, group.id)).filter((unit) => unit.status === 'provisioned' && unit.iccid !== null);
  const outcomes: ('revoked' | 'refused' | 'unreachable')[] = [];
  for (let at = 0; at < units.length; at += revokeConcurrency) {
    const batch = units.slice(at, at + revokeConcurrency);
    outcomes.push(
      ...(await Promise.all(
        batch.map(async (unit) => {
          try {
            const outcome = await deps.provisioning.revokeBundle({ accountId: unit.partnerId, reference: unit.id, iccid: unit.iccid as string, firstBundle: true });
            return outcome.revoked ? 'revoked' : 'refused';
          } catch (error) {
            deps.logger.warn({ orderId: group.id, unitOrderId: unit.id, err: error }, 'cancel: the supplier could not revoke a group eSIM now');
            return 'unreachable';
          }
        }),
      )),
    );
    if (outcomes.some((outcome) => outcome !== 'revoked')) break;
  }
  if (outcomes.some((outcome) => outcome !== 'revoked')) {
    const anyRevoked = outcomes.includes('revoked');
    if (!anyRevoked && (options.clearOnFailure || outcomes.includes('refused'))) await clearCancelRequested(deps.pool, group.id);
    if (!anyRevoked && outcomes.includes('refused')) {
      throw new AppError('ORDER_NOT_CANCELLABLE', `Order ${group.id} cannot be cancelled: the supplier refused to revoke its eSIMs.`);
    }
    throw new AppError('UNAVAILABLE', 'The supplier could not be reached to revoke every eSIM of the order; retry shortly (the cancellation completes by itself once begun).');
  }
  const refund = await deps.wallet.refund({ orderId: group.id, partnerId: group.partnerId, reason: `group order cancelled (${group.quantity} × ${group.planName})` });
  const cancelled = await withTransaction(deps.pool, (db) => recordGroupCancellation(db, group.id, refund.amount));
  if (cancelled.recorded) {
    ordersCancelled.add(1, { via: options.via, ...modeOf(group.partnerId) });
    deps.logger.info({ orderId: group.id, partnerId: group.partnerId, refundedAmount: refund.amount, via: options.via }, 'group order cancelled and refunded');
  }
  return { order: cancelled.order, refundedAmount: refund.amount };
}

async function recordGroupCancellation(db: Queryable, groupId: string, refundedAmount: number): Promise<{ order: VisibleOrder; recorded: boolean }> {
  const group = await findOrder(db, groupId, { forUpdate: true });
  if (group?.status === 'cancelled') return { order: (await withGroupEsims(db, [group as VisibleOrder]))[0] as VisibleOrder, recorded: false };
  if (!group || (group.status !== 'provisioned' && group.status !== 'partially_provisioned')) throw new Error(`group order ${groupId} is not provisioned; cannot record its cancellation`);
  // The view's refundedAmount is everything given back: an earlier refund of missing units plus this one.
  const cancelled = (await markCancelled(db, groupId, (group.refundedAmount ?? 0) + refundedAmount)) as VisibleOrder;
  for (const unit of await unitOrdersOf(db, groupId)) {
    if (unit.status !== 'provisioned' || unit.iccid === null) continue;
    await lockEsimKey(db, unit.iccid);
    await markCancelled(db, unit.id, unit.price);
    const state = await findEsimState(db, unit.iccid);
    const bundle = state?.bundles.find((candidate) => candidate.orderId === unit.id);
    if (state && bundle) {
      bundle.status = 'cancelled';
      state.esim.status = 'cancelled';
      state.esim.updatedAt = new Date();
      await saveBundle(db, bundle);
      await saveEsim(db, state.esim);
    }
  }
  const [view] = await withGroupEsims(db, [cancelled]);
  await enqueueEvent(db, schema, 'partner.notification', {
    partnerId: cancelled.partnerId,
    type: 'order.cancelled',
    orderId: groupId,
    payload: { order: partnerOrderViewOf(view ?? cancelled), refundedAmount },
  });
  return { order: view ?? cancelled, recorded: true };
}
