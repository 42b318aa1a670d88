import { enqueueEvent } from '@esim/events';
import type { Queryable } from '@esim/postgres';
import { markProcessing, schema } from '../store/orderStore.js';
import type { Order, VisibleOrder } from './order.js';

/**
 * The wallet holds the order's price: the order becomes 'processing' and, in
 * the same transaction, `orders.order.paid` (provisioning starts) and then the
 * partner's `payment.paid` are written to the outbox, in that order. Called
 * with the order locked, by CreateOrder or by the sweeper, whichever settles it.
 */
export async function confirmPayment(db: Queryable, order: Order, walletBalance: number): Promise<VisibleOrder> {
  const paid = await markProcessing(db, order.id);
  if (!paid) throw new Error(`order ${order.id} was not pending while locked`);
  await enqueueEvent(db, schema, 'orders.order.paid', {
    orderId: paid.id,
    partnerId: paid.partnerId,
    planId: paid.planId,
    supplierSku: paid.supplierSku,
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
