import { z } from 'zod';
import { livemodeOf, partnerIdOf } from '@esim/ids';
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
      .describe(
        'processing → provisioned (esim set) or failed (failureReason set, price refunded); provisioned → cancelled (refunded, esim kept for the record). ' +
          'A group order some of whose eSIMs could not be provisioned ends partially_provisioned, the missing ones refunded (refundedAmount)',
      ),
    price: z.number().int().describe('Charged, in minor units of `currency`: the catalog price for your tier at order time'),
    currency: z.string(),
    email: z.string(),
    phoneNumber: z.string(),
    esim: esimView.nullable().describe('Null until provisioned; for a top-up, the existing eSIM (nothing new to install). For a group order, the first of `esims`'),
    failureReason: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    quantity: z.number().int().describe('eSIMs ordered at once (1–50); a top-up is always 1'),
    unitPrice: z.number().int().describe('The price of one eSIM (or bundle); price = quantity × unitPrice'),
    esims: z.array(esimView).describe('Every provisioned eSIM of the order, in order; empty until provisioned'),
    refundedAmount: z
      .number()
      .int()
      .nullable()
      .describe('What was given back: a partially provisioned group order’s missing eSIMs, or a cancellation; null when nothing was'),
    livemode: z.boolean().describe('false for test mode (a test key’s data, contract §14); true for live'),
  }),
  'Order',
  'both',
);

export const orderCreatedView = component(
  orderView.extend({ walletBalance: z.number().int().describe('Wallet balance after the debit (the current balance on a replay)') }),
  'OrderCreated',
  'public',
);

/** What operators see besides the partner's view (§10): the partner (never its test account id: `livemode` tells the mode, §14). */
export const adminOrderView = component(
  orderView.extend({ partnerId: z.string().describe('The partner, whichever the mode (livemode says which)'), supplierReference: z.string().nullable() }),
  'AdminOrder',
  'admin',
);

function toEsimView(esim: ordersV1.Esim): z.input<typeof esimView> {
  return {
    iccid: esim.iccid,
    smdpAddress: esim.smdpAddress,
    matchingId: esim.matchingId,
    activationCode: esim.activationCode,
    qrCode: esim.qrCode,
    appleInstallUrl: esim.appleInstallUrl,
  };
}

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
    quantity: order.quantity || 1,
    unitPrice: Number(order.unitPrice || order.price),
    esims: order.esims.map(toEsimView),
    refundedAmount: order.refundedAmount === undefined ? null : Number(order.refundedAmount),
    livemode: livemodeOf(order.partnerId),
  };
}

export function toAdminOrderView(order: ordersV1.Order): z.input<typeof adminOrderView> {
  return { ...toOrderView(order), partnerId: partnerIdOf(order.partnerId), supplierReference: order.supplierReference ?? null };
}
