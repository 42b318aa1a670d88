import { z } from 'zod';
import { ordersV1 } from '@esim/proto';
import { orderKinds, orderStatuses } from '@esim/vocabulary';
import { component } from '../http/components.js';
import { fromProtoEnum } from './enums.js';

export const esimView = component(
  z.object({
    iccid: z.string(),
    smdpAddress: z.string(),
    matchingId: z.string(),
    activationCode: z.string().describe('GSMA SGP.22 LPA string, LPA:1$<smdp>$<matchingId>'),
    qrCode: z.string().describe('data:image/png;base64,… QR code encoding activationCode'),
    appleInstallUrl: z
      .string()
      .describe("Apple's universal install link (iOS 17.4+): https://esimsetup.apple.com/esim_qrcode_provisioning?carddata=<activationCode, percent-encoded>"),
  }),
  'OrderEsim',
  'both',
);

/**
 * §7 order view, exactly: fastify serializes through this schema, so the
 * partner id, supplier reference and SKU have no field to leak through.
 */
export const orderView = component(
  z.object({
    id: z.string(),
    clientRequestId: z.string(),
    kind: z.enum(orderKinds).describe('esim: a new eSIM; topup: a bundle added to the eSIM named by iccid'),
    iccid: z.string().nullable().describe('A top-up’s eSIM; for an esim order, null until provisioned, then the new eSIM’s'),
    planId: z.string(),
    planName: z.string(),
    status: z
      .enum(orderStatuses)
      .describe('processing → provisioned (esim set) or failed (failureReason set, price refunded); provisioned → cancelled (refunded, esim kept for the record)'),
    price: z.number().int().describe('Charged, in minor units of `currency`: the catalog price for your tier at order time'),
    currency: z.string(),
    email: z.string(),
    phoneNumber: z.string(),
    esim: esimView.nullable().describe('Null until provisioned; for a top-up, the existing eSIM (nothing new to install)'),
    failureReason: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
  'Order',
  'both',
);

export const orderCreatedView = component(
  orderView.extend({ walletBalance: z.number().int().describe('Wallet balance after the debit (the current balance on a replay)') }),
  'OrderCreated',
  'public',
);

/** What operators see besides the partner's view (§10). */
export const adminOrderView = component(
  orderView.extend({ partnerId: z.string(), supplierReference: z.string().nullable() }),
  'AdminOrder',
  'admin',
);

export function toOrderView(order: ordersV1.Order): z.input<typeof orderView> {
  const esim = order.esim;
  return {
    id: order.id,
    clientRequestId: order.clientRequestId,
    kind: fromProtoEnum(orderKinds, ordersV1.OrderKind, order.kind, 'order kind'),
    iccid: order.iccid ?? null,
    planId: order.planId,
    planName: order.planName,
    status: fromProtoEnum(orderStatuses, ordersV1.OrderStatus, order.status, 'order status'),
    price: Number(order.price),
    currency: order.currency,
    email: order.email,
    phoneNumber: order.phoneNumber,
    esim: esim
      ? {
          iccid: esim.iccid,
          smdpAddress: esim.smdpAddress,
          matchingId: esim.matchingId,
          activationCode: esim.activationCode,
          qrCode: esim.qrCode,
          appleInstallUrl: esim.appleInstallUrl,
        }
      : null,
    failureReason: order.failureReason ?? null,
    createdAt: order.createdAt,
    updatedAt: order.updatedAt,
  };
}

export function toAdminOrderView(order: ordersV1.Order): z.input<typeof adminOrderView> {
  return { ...toOrderView(order), partnerId: order.partnerId, supplierReference: order.supplierReference ?? null };
}
