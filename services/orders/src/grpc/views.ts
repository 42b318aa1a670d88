import type { ServiceHandlers } from '@esim/grpc';
import type { ordersV1 } from '@esim/proto';
import { usageOf, type EsimState } from '../esims/esim.js';
import { appleInstallUrlOf, shownFailureReason, type VisibleOrder } from '../domain/order.js';
import { bundleStatusToProto, esimStatusToProto, orderKindToProto, orderStatusToProto } from './enums.js';

type OrdersHandlers = ServiceHandlers<(typeof ordersV1.OrdersService)['method']>;
/** What a handler may return for an Order message (nested messages as plain objects). */
type OrderInit = Awaited<ReturnType<OrdersHandlers['getOrder']>>;
type EsimViewInit = Awaited<ReturnType<OrdersHandlers['getEsim']>>;

const iso = (date: Date | null) => (date ? date.toISOString() : undefined);

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
    kind: orderKindToProto(order.kind),
    iccid: order.iccid ?? undefined,
    planId: order.planId,
    planName: order.planName,
    status: orderStatusToProto(order.status),
    price: BigInt(order.price),
    currency: order.currency,
    email: order.email,
    phoneNumber: order.phoneNumber,
    esim: order.esim ? { ...order.esim } : undefined,
    failureReason: shownFailureReason(order) ?? undefined,
    createdAt: order.createdAt.toISOString(),
    updatedAt: order.updatedAt.toISOString(),
    supplierReference: order.supplierReference ?? undefined,
    provisionedAt: iso(order.provisionedAt),
    cancelledAt: iso(order.cancelledAt),
    quantity: order.quantity,
    unitPrice: BigInt(order.unitPrice),
    esims: order.esims.map((esim) => ({ ...esim })),
    refundedAmount: order.refundedAmount === null ? undefined : BigInt(order.refundedAmount),
  };
}

/** The eSIM message: everything the contract's §13 view shows, plus partner_id and installed_at for operators. */
export function esimMessage(state: EsimState): EsimViewInit {
  const { esim, bundles } = state;
  const usage = usageOf(state);
  return {
    iccid: esim.iccid,
    partnerId: esim.partnerId,
    orderId: esim.shownOrderId,
    status: esimStatusToProto(esim.status),
    smdpAddress: esim.smdpAddress,
    matchingId: esim.matchingId,
    activationCode: esim.activationCode,
    appleInstallUrl: appleInstallUrlOf(esim.activationCode),
    countries: esim.countries,
    region: esim.region ?? undefined,
    usage: { ...usage, updatedAt: usage.updatedAt.toISOString() },
    bundles: bundles.map((bundle) => ({
      orderId: bundle.shownOrderId,
      planId: bundle.planId,
      planName: bundle.planName,
      dataMb: bundle.dataMb,
      dataUsedMb: bundle.dataUsedMb,
      validityDays: bundle.validityDays,
      status: bundleStatusToProto(bundle.status),
      activatedAt: iso(bundle.activatedAt),
      expiresAt: iso(bundle.expiresAt),
    })),
    createdAt: esim.createdAt.toISOString(),
    updatedAt: esim.updatedAt.toISOString(),
    installedAt: iso(esim.installedAt),
    eid: esim.eid ?? undefined,
    lastError: esim.lastError
      ? {
          at: esim.lastError.at.toISOString(),
          notificationPoint: esim.lastError.notificationPoint,
          reasonCode: esim.lastError.reasonCode ?? undefined,
          message: esim.lastError.message ?? undefined,
        }
      : undefined,
    suspended: esim.suspended,
  };
}
