import { livemodeOf } from '@esim/ids';
import type { partnerBundleView, partnerEsimView, partnerOrderView } from '@esim/events';
import type { z } from 'zod';
import { usageOf, type BundleRecord, type EsimState } from '../esims/esim.js';
import { appleInstallUrlOf, shownFailureReason, type Esim, type VisibleOrder } from './order.js';

export type PartnerOrderView = z.output<typeof partnerOrderView>;
export type PartnerEsimView = z.output<typeof partnerEsimView>;
export type PartnerBundleView = z.output<typeof partnerBundleView>;

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/**
 * The order as webhooks carry it (contract §9): the partner view without the
 * QR code PNG (receivers can draw it from activationCode) and without
 * operator-only fields.
 */
export function partnerOrderViewOf(order: VisibleOrder): PartnerOrderView {
  return {
    id: order.id,
    clientRequestId: order.clientRequestId,
    kind: order.kind,
    iccid: order.iccid,
    planId: order.planId,
    planName: order.planName,
    status: order.status,
    price: order.price,
    currency: order.currency,
    email: order.email,
    phoneNumber: order.phoneNumber,
    esim: order.esim ? withoutQr(order.esim) : null,
    failureReason: shownFailureReason(order),
    createdAt: order.createdAt.toISOString(),
    updatedAt: order.updatedAt.toISOString(),
    quantity: order.quantity,
    unitPrice: order.unitPrice,
    esims: order.esims.map(withoutQr),
    refundedAmount: order.refundedAmount,
    livemode: livemodeOf(order.partnerId),
  };
}

function withoutQr(esim: Esim) {
  return { iccid: esim.iccid, smdpAddress: esim.smdpAddress, matchingId: esim.matchingId, activationCode: esim.activationCode, appleInstallUrl: esim.appleInstallUrl };
}

/** `livemode` is the eSIM's (its owner's account, §14): a bundle record does not name its owner. */
export function partnerBundleViewOf(bundle: BundleRecord, livemode: boolean): PartnerBundleView {
  return {
    orderId: bundle.shownOrderId,
    planId: bundle.planId,
    planName: bundle.planName,
    dataMb: bundle.dataMb,
    dataUsedMb: bundle.dataUsedMb,
    validityDays: bundle.validityDays,
    status: bundle.status,
    activatedAt: iso(bundle.activatedAt),
    expiresAt: iso(bundle.expiresAt),
    livemode,
  };
}

/** The eSIM as partners see it (contract §13), for webhooks; the gateway draws the same view from the proto message. */
export function partnerEsimViewOf(state: EsimState): PartnerEsimView {
  const { esim, bundles } = state;
  const usage = usageOf(state);
  const livemode = livemodeOf(esim.partnerId);
  return {
    iccid: esim.iccid,
    orderId: esim.shownOrderId,
    status: esim.status,
    smdpAddress: esim.smdpAddress,
    matchingId: esim.matchingId,
    activationCode: esim.activationCode,
    appleInstallUrl: appleInstallUrlOf(esim.activationCode),
    countries: esim.countries,
    region: esim.region,
    usage: { ...usage, updatedAt: usage.updatedAt.toISOString() },
    bundles: bundles.map((bundle) => partnerBundleViewOf(bundle, livemode)),
    eid: esim.eid,
    lastError: esim.lastError ? { ...esim.lastError, at: esim.lastError.at.toISOString() } : null,
    suspended: esim.suspended,
    createdAt: esim.createdAt.toISOString(),
    updatedAt: esim.updatedAt.toISOString(),
    livemode,
  };
}
