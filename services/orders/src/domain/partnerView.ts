import type { partnerOrderView } from '@esim/events';
import type { z } from 'zod';
import { shownFailureReason, type VisibleOrder } from './order.js';

export type PartnerOrderView = z.input<typeof partnerOrderView>;

/**
 * The order as webhooks carry it (contract §9): the partner view without the
 * QR code PNG (receivers can draw it from activationCode) and without
 * operator-only fields.
 */
export function partnerOrderViewOf(order: VisibleOrder): PartnerOrderView {
  return {
    id: order.id,
    clientRequestId: order.clientRequestId,
    planId: order.planId,
    planName: order.planName,
    status: order.status,
    price: order.price,
    currency: order.currency,
    email: order.email,
    phoneNumber: order.phoneNumber,
    esim: order.esim
      ? { iccid: order.esim.iccid, smdpAddress: order.esim.smdpAddress, matchingId: order.esim.matchingId, activationCode: order.esim.activationCode }
      : null,
    failureReason: shownFailureReason(order),
    createdAt: order.createdAt.toISOString(),
    updatedAt: order.updatedAt.toISOString(),
  };
}
