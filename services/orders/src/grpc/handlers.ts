import type { ServiceHandlers } from '@esim/grpc';
import type { ordersV1 } from '@esim/proto';
import { createOrder } from '../domain/createOrder.js';
import type { OrdersDeps } from '../domain/deps.js';
import { getOrder } from '../domain/getOrder.js';
import { listOrders } from '../domain/listOrders.js';
import { orderMessage } from './views.js';

type OrdersMethods = (typeof ordersV1.OrdersService)['method'];

/** Transport only: each RPC converts its message, calls one use case, converts the answer. */
export function ordersHandlers(deps: OrdersDeps): ServiceHandlers<OrdersMethods> {
  return {
    async createOrder(request) {
      const { order, walletBalance, replayed } = await createOrder(deps, request);
      return { order: orderMessage(order), walletBalance: BigInt(walletBalance), replayed };
    },
    async getOrder(request) {
      return orderMessage(await getOrder(deps.pool, request));
    },
    async listOrders(request) {
      const { orders, total } = await listOrders(deps.pool, request);
      return { orders: orders.map(orderMessage), total };
    },
  };
}
