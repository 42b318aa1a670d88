import { AppError } from '@esim/errors';
import type { Queryable } from '@esim/postgres';
import { openTopUpIds } from '../store/cancelStore.js';
import { findEsimState, lockEsimKey } from '../store/esimStore.js';
import { checkGroupCancellable } from './groupCancellation.js';
import { isGroup, type Order } from './order.js';

/**
 * Contract §13: an order can be cancelled only while it was sold but never
 * used. Checked in the caller's transaction, with the order row locked and
 * then the eSIM's lock taken (the order every writer follows), so a
 * notification or a top-up cannot slip between the check and the flag.
 * Each refusal is ORDER_NOT_CANCELLABLE naming its rule.
 */
export async function checkCancellable(db: Queryable, order: Order, windowMs: number, now = new Date()): Promise<void> {
  if (isGroup(order)) {
    await checkGroupCancellable(db, order, (why) => refuse(order, why));
    checkWindow(order, windowMs, now);
    return;
  }
  if (order.status !== 'provisioned' || order.iccid === null) refuse(order, `it is ${order.status}; only a provisioned order can be cancelled`);
  const iccid = order.iccid;
  await lockEsimKey(db, iccid);
  const state = await findEsimState(db, iccid);
  const bundle = state?.bundles.find((candidate) => candidate.orderId === order.id);
  if (!state || !bundle) refuse(order, 'its eSIM is not recorded');
  if (bundle.dataUsedMb > 0 || bundle.status === 'depleted') refuse(order, 'its data has been used');
  if (order.kind === 'esim') {
    if (state.esim.status === 'installed') refuse(order, 'its eSIM is installed on a device');
    const topUps = await openTopUpIds(db, iccid);
    if (topUps.length > 0) refuse(order, `its eSIM has a top-up that is not cancelled (${topUps.join(', ')})`);
  }
  checkWindow(order, windowMs, now);
}

function checkWindow(order: Order, windowMs: number, now: Date): void {
  const provisionedAt = order.provisionedAt ?? order.updatedAt;
  if (now.getTime() - provisionedAt.getTime() > windowMs) refuse(order, 'it is past the cancellation window (ORDER_CANCEL_WINDOW) since provisioning');
}

function refuse(order: Order, why: string): never {
  throw new AppError('ORDER_NOT_CANCELLABLE', `Order ${order.id} cannot be cancelled: ${why}.`);
}
