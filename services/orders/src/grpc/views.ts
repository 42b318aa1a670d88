import type { ServiceHandlers } from '@esim/grpc';
import type { ordersV1 } from '@esim/proto';
import { shownFailureReason, type VisibleOrder } from '../domain/order.js';

/** What a handler may return for an Order message (nested messages as plain objects). */
type OrderInit = Awaited<ReturnType<ServiceHandlers<(typeof ordersV1.OrdersService)['method']>['getOrder']>>;

/**
 * The order message for the gateway, which shapes the partner and operator
 * views from it (partner_id and supplier_reference reach operators only).
 * int64 money crosses as bigint; proto3's "unset" is `undefined`.
 */
export function orderMessage(order: VisibleOrder): OrderInit {
  return {
    id: order.id,
    partnerId: order.partnerId,
    clientRequestId: order.clientRequestId,
    planId: order.planId,
    planName: order.planName,
    status: order.status,
    price: BigInt(order.price),
    currency: order.currency,
    email: order.email,
    phoneNumber: order.phoneNumber,
    esim: order.esim ? { ...order.esim } : undefined,
    failureReason: shownFailureReason(order) ?? undefined,
    createdAt: order.createdAt.toISOString(),
    updatedAt: order.updatedAt.toISOString(),
    supplierReference: order.supplierReference ?? undefined,
  };
}
