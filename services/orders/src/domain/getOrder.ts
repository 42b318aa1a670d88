import { AppError } from '@esim/errors';
import { isId } from '@esim/ids';
import type { Queryable } from '@esim/postgres';
import { findOrder } from '../store/orderStore.js';
import { withGroupEsims } from './groupOrders.js';
import { isVisible, type VisibleOrder } from './order.js';

/**
 * One order. Unknown, malformed, another partner's and not-yet-paid ids all
 * answer the same ORDER_NOT_FOUND (contract §3), so an id reveals nothing.
 * `partnerId` '' is an operator: any partner's order.
 */
export async function getOrder(db: Queryable, request: { id: string; partnerId: string }): Promise<VisibleOrder> {
  const order = isId('ord', request.id) ? await findOrder(db, request.id) : undefined;
  // A group's unit orders are internal: their eSIMs show on the group.
  if (!order || !isVisible(order) || order.groupOrderId !== null || (request.partnerId !== '' && order.partnerId !== request.partnerId)) {
    throw new AppError('ORDER_NOT_FOUND', `No order ${request.id}.`);
  }
  const [withEsims] = await withGroupEsims(db, [order]);
  return withEsims ?? order;
}
