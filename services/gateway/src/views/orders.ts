import { z } from 'zod';
import type { ordersV1 } from '@esim/proto';
import { orderStatuses, type OrderStatus } from '@esim/vocabulary';
import { component } from '../http/components.js';

export const esimView = component(
  z.object({
    iccid: z.string(),
    smdpAddress: z.string(),
    matchingId: z.string(),
    activationCode: z.string().describe('GSMA SGP.22 LPA string, LPA:1$<smdp>$<matchingId>'),
    qrCode: z.string().describe('data:image/png;base64,… QR code encoding activationCode'),
  }),
  'Esim',
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
    planId: z.string(),
    planName: z.string(),
    status: z.enum(orderStatuses).describe('processing → provisioned (esim set) or failed (failureReason set, price refunded)'),
    price: z.number().int().describe('Charged, in minor units of `currency`: the catalog price for your tier at order time'),
    currency: z.string(),
    email: z.string(),
    phoneNumber: z.string(),
    esim: esimView.nullable().describe('Null until provisioned'),
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
    planId: order.planId,
    planName: order.planName,
    status: order.status as OrderStatus,
    price: Number(order.price),
    currency: order.currency,
    email: order.email,
    phoneNumber: order.phoneNumber,
    esim: esim
      ? { iccid: esim.iccid, smdpAddress: esim.smdpAddress, matchingId: esim.matchingId, activationCode: esim.activationCode, qrCode: esim.qrCode }
      : null,
    failureReason: order.failureReason ?? null,
    createdAt: order.createdAt,
    updatedAt: order.updatedAt,
  };
}

export function toAdminOrderView(order: ordersV1.Order): z.input<typeof adminOrderView> {
  return { ...toOrderView(order), partnerId: order.partnerId, supplierReference: order.supplierReference ?? null };
}
