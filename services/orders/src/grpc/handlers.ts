import type { ServiceHandlers } from '@esim/grpc';
import type { ordersV1 } from '@esim/proto';
import { cancelOrder } from '../domain/cancelOrder.js';
import { createOrder } from '../domain/createOrder.js';
import type { OrdersDeps } from '../domain/deps.js';
import { getEsim, listEsims } from '../domain/esimReads.js';
import { getOrder } from '../domain/getOrder.js';
import { listOrders } from '../domain/listOrders.js';
import { quoteOrder } from '../domain/quoteOrder.js';
import { recordSupplierNotification } from '../domain/recordSupplierNotification.js';
import { esimStatusFilter, notificationTypeFromProto, orderStatusFilter } from './enums.js';
import { esimMessage, orderMessage } from './views.js';

type OrdersMethods = (typeof ordersV1.OrdersService)['method'];

/** Transport only: each RPC converts its message, calls one use case, converts the answer. */
export function ordersHandlers(deps: OrdersDeps): ServiceHandlers<OrdersMethods> {
  return {
    async createOrder(request) {
      const { order, walletBalance, replayed } = await createOrder(deps, { ...request, catalogVersion: Number(request.catalogVersion) });
      return { order: orderMessage(order), walletBalance: BigInt(walletBalance), replayed };
    },
    async getOrder(request) {
      return orderMessage(await getOrder(deps.pool, request));
    },
    async listOrders(request) {
      const { orders, total } = await listOrders(deps.pool, { ...request, status: orderStatusFilter(request.status) });
      return { orders: orders.map(orderMessage), total };
    },
    async cancelOrder(request) {
      const { order, refundedAmount, alreadyCancelled } = await cancelOrder(deps, request);
      return { order: orderMessage(order), refundedAmount: BigInt(refundedAmount), alreadyCancelled };
    },
    async getEsim(request) {
      return esimMessage(await getEsim(deps.pool, request));
    },
    async listEsims(request) {
      const { esims, total } = await listEsims(deps.pool, { ...request, status: esimStatusFilter(request.status) });
      return { esims: esims.map(esimMessage), total };
    },
    async quoteOrder(request) {
      const quote = await quoteOrder(deps, { ...request, catalogVersion: Number(request.catalogVersion) });
      return {
        ...quote,
        unitPrice: BigInt(quote.unitPrice),
        price: BigInt(quote.price),
        walletBalance: BigInt(quote.walletBalance),
        balanceAfter: BigInt(quote.balanceAfter),
        compatible: quote.compatible ?? undefined,
      };
    },
    async recordSupplierNotification(request) {
      return recordSupplierNotification(deps, { ...request, type: notificationTypeFromProto(request.type) });
    },
  };
}
