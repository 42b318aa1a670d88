import { enqueueEvent } from '@esim/events';
import { livemodeOf } from '@esim/ids';
import type { Queryable } from '@esim/postgres';
import { markProcessing, schema } from '../store/orderStore.js';
import { queueUnits } from './groupOrders.js';
import { isGroup, type Order, type VisibleOrder } from './order.js';

/**
 * The wallet holds the order's price: the order becomes 'processing' and, in
 * the same transaction, `orders.order.paid` (provisioning starts) and then the
 * partner's `payment.paid` are written to the outbox, in that order. Called
 * by CreateOrder after its Reserve and by the sweeper after GetReservation,
 * each in a short transaction of its own; the guarded 'pending' → 'processing'
 * update lets only the first of them confirm. A group's units and their
 * orders.order.paid events are written here too (groupOrders.ts). Undefined when the order was no
 * longer pending (the other one confirmed it, or the sweeper dropped it).
 */
export async function confirmPayment(db: Queryable, order: Order, walletBalance: number): Promise<VisibleOrder | undefined> {
  const paid = await markProcessing(db, order.id);
  if (!paid) return undefined;
  // A group's eSIMs are provisioned unit by unit, each with its own orders.order.paid.
  if (isGroup(paid)) await queueUnits(db, paid);
  else await enqueueEvent(db, schema, 'orders.order.paid', {
    orderId: paid.id,
    partnerId: paid.partnerId,
    planId: paid.planId,
    supplierSku: paid.supplierSku,
    ...(paid.profileType ? { profileType: paid.profileType } : {}),
    // Test mode's magic e-mails (§14) steer the simulator; a live customer's e-mail stays here.
    ...(livemodeOf(paid.partnerId) ? {} : { customerEmail: paid.email }),
    price: paid.price,
    currency: paid.currency,
    kind: paid.kind,
    iccid: paid.iccid,
    ...(paid.dataMb === null ? {} : { dataMb: paid.dataMb }),
    ...(paid.validityDays === null ? {} : { validityDays: paid.validityDays }),
  });
  await enqueueEvent(db, schema, 'partner.notification', {
    partnerId: paid.partnerId,
    type: 'payment.paid',
    orderId: paid.id,
    payload: { orderId: paid.id, clientRequestId: paid.clientRequestId, amount: paid.price, currency: paid.currency, walletBalance },
  });
  return paid as VisibleOrder;
}
