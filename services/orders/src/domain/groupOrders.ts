import { enqueueEvent } from '@esim/events';
import { livemodeOf, newId } from '@esim/ids';
import type { Queryable } from '@esim/postgres';
import type { Logger } from '@esim/telemetry';
import { insertUnitOrders, markPartiallyProvisioned, unitEsimsOf, unitOrdersOf } from '../store/groupStore.js';
import { findOrder, markProvisioned, recordFailureReason, schema } from '../store/orderStore.js';
import { isGroup, type Order, type VisibleOrder } from './order.js';
import { partnerOrderViewOf } from './partnerView.js';

/**
 * Group orders (contract §7): one order, one debit, one payment.paid for
 * `quantity` eSIMs. Each eSIM is provisioned on its own by a unit order
 * (internal, never listed) whose id keys the provisioning job and the
 * supplier's reference, so provisioning, the eSIM and its bundles work as
 * for a single order, and the saga's concurrency bound (provisioning's
 * consumer) is what runs units in parallel. The guarantees:
 * - the units and their orders.order.paid events are committed with the
 *   group's payment: a crash leaves all of them or none;
 * - each unit's outcome and the group's settlement commit together, under
 *   the group's lock, so the last unit to settle settles the group exactly
 *   once, whatever the redeliveries;
 * - the group is provisioned when every unit is; otherwise the missing
 *   units go back as ONE refund (orders.order.provisioning_failed with the
 *   amount), and the group becomes partially_provisioned (or failed, with
 *   none provisioned) only once that refund is recorded (applyRefunded).
 */

/** Called in the payment's transaction: the group's units, each with its orders.order.paid. */
export async function queueUnits(db: Queryable, group: Order): Promise<void> {
  const ids = Array.from({ length: group.quantity }, () => newId('ord'));
  const units = await insertUnitOrders(db, group, ids);
  for (const unit of units) {
    await enqueueEvent(db, schema, 'orders.order.paid', {
      orderId: unit.id,
      partnerId: unit.partnerId,
      planId: unit.planId,
      supplierSku: unit.supplierSku,
      ...(unit.profileType ? { profileType: unit.profileType } : {}),
      // Test mode's magic e-mails (§14) steer the simulator; a live customer's e-mail stays here.
      ...(livemodeOf(unit.partnerId) ? {} : { customerEmail: unit.email }),
      price: unit.price,
      currency: unit.currency,
      kind: 'esim',
      iccid: null,
      ...(unit.dataMb === null ? {} : { dataMb: unit.dataMb }),
      ...(unit.validityDays === null ? {} : { validityDays: unit.validityDays }),
    });
  }
}

/**
 * After one unit's outcome, in the same transaction: once no unit is still
 * processing, the group is settled. Every unit provisioned: the group is
 * provisioned with them (the wallet captures the price). Otherwise the
 * refund of the missing units is asked for, once (the failure reason is the
 * guard), and the group waits for it.
 */
export async function settleGroup(db: Queryable, logger: Logger, groupId: string): Promise<void> {
  const group = await findOrder(db, groupId, { forUpdate: true });
  if (!group || group.status !== 'processing' || group.failureReason !== null) return;
  const units = await unitOrdersOf(db, groupId);
  if (units.length < group.quantity || units.some((unit) => unit.status === 'processing')) return;
  const provisioned = units.filter((unit) => unit.status === 'provisioned');
  const first = provisioned[0];
  if (first?.esim && provisioned.length === units.length) {
    const { appleInstallUrl: _derived, ...esim } = first.esim;
    const done = await markProvisioned(db, groupId, esim, first.supplierReference ?? '');
    if (!done) return;
    const view = { ...(done as VisibleOrder), esims: provisioned.flatMap((unit) => (unit.esim ? [unit.esim] : [])) };
    await enqueueEvent(db, schema, 'orders.order.provisioned', { orderId: groupId, partnerId: group.partnerId });
    await enqueueEvent(db, schema, 'partner.notification', {
      partnerId: group.partnerId,
      type: 'provision.provisioned',
      orderId: groupId,
      payload: { order: partnerOrderViewOf(view) },
    });
    logger.info({ orderId: groupId, partnerId: group.partnerId, quantity: group.quantity }, 'group order provisioned');
    return;
  }
  const failed = units.filter((unit) => unit.status === 'failed');
  const reason = failed[0]?.failureReason ?? 'The supplier did not provision the eSIMs.';
  const amount = failed.length * group.unitPrice;
  await recordFailureReason(db, groupId, reason);
  // The whole price when nothing was provisioned (the wallet's usual refund); else exactly the missing units'.
  await enqueueEvent(db, schema, 'orders.order.provisioning_failed', {
    orderId: groupId,
    partnerId: group.partnerId,
    reason,
    ...(provisioned.length > 0 ? { amount } : {}),
  });
  logger.warn({ orderId: groupId, partnerId: group.partnerId, provisioned: provisioned.length, failed: failed.length, amount }, 'group order: units failed; refund requested');
}

/**
 * The refund of a group whose units did not all provision is recorded:
 * with some provisioned, the group is partially_provisioned, its first eSIM
 * set and the refund on the view and on provision.provisioned. Undefined
 * when none was provisioned (the caller fails the group as a single order).
 */
export async function settleGroupRefund(db: Queryable, group: Order, amount: number): Promise<VisibleOrder | undefined> {
  const units = await unitOrdersOf(db, group.id);
  const provisioned = units.filter((unit) => unit.status === 'provisioned');
  const first = provisioned[0];
  if (!first) return undefined;
  const settled = await markPartiallyProvisioned(db, group.id, first, amount);
  if (!settled) return undefined;
  const view = { ...(settled as VisibleOrder), esims: provisioned.flatMap((unit) => (unit.esim ? [unit.esim] : [])) };
  await enqueueEvent(db, schema, 'partner.notification', {
    partnerId: group.partnerId,
    type: 'provision.provisioned',
    orderId: group.id,
    payload: { order: partnerOrderViewOf(view), refundedAmount: amount },
  });
  return view;
}

/** Groups read with their units' eSIMs (a single order's `esims` is already `[esim]`). */
export async function withGroupEsims<T extends Order>(db: Queryable, orders: T[]): Promise<T[]> {
  const groups = orders.filter(isGroup).map((order) => order.id);
  if (groups.length === 0) return orders;
  const esims = await unitEsimsOf(db, groups);
  return orders.map((order) => (isGroup(order) ? { ...order, esims: esims.get(order.id) ?? [] } : order));
}
