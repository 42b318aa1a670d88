import { z } from 'zod';
import { livemodeOf, partnerIdOf } from '@esim/ids';
import { ordersV1 } from '@esim/proto';
import { bundleStatuses, esimStatuses } from '@esim/vocabulary';
import { component } from '../http/components.js';
import { fromProtoEnum } from './enums.js';

export const bundleView = component(
  z.object({
    orderId: z.string().describe('The order that bought it: the eSIM’s first order or a top-up'),
    planId: z.string(),
    planName: z.string(),
    dataMb: z.number().int(),
    dataUsedMb: z.number().int(),
    validityDays: z.number().int(),
    status: z.enum(bundleStatuses).describe('queued → active (at first use) → depleted (used = dataMb) or expired; cancelled'),
    activatedAt: z.string().nullable(),
    expiresAt: z.string().nullable().describe('activatedAt + validityDays'),
    livemode: z.boolean().describe('false for test mode (a test key’s data, contract §14); true for live'),
  }),
  'Bundle',
  'both',
);

export const usageView = component(
  z.object({
    dataTotalMb: z.number().int().describe('Sum over the bundles that are neither expired nor cancelled'),
    dataUsedMb: z.number().int(),
    dataRemainingMb: z.number().int().describe('dataTotalMb − dataUsedMb, never negative'),
    updatedAt: z.string(),
  }),
  'EsimUsage',
  'both',
);

/**
 * §13 eSIM view, exactly: what the supplier reported (installation, use,
 * expiry) over the bundles the partner bought, oldest first.
 */
export const esimStateView = component(
  z.object({
    iccid: z.string(),
    orderId: z.string().describe('The order that issued it'),
    status: z.enum(esimStatuses).describe('released (never downloaded) → installed → deleted (from the device); cancelled when its first order was'),
    smdpAddress: z.string(),
    matchingId: z.string(),
    activationCode: z.string().describe('GSMA SGP.22 LPA string'),
    appleInstallUrl: z.string(),
    countries: z.array(z.string()).describe('Those of its first plan; a top-up plan must cover every one'),
    region: z.string().nullable(),
    usage: usageView,
    bundles: z.array(bundleView).describe('In purchase order; one active at a time, the oldest queued one starts when it ends'),
    eid: z.string().nullable().describe('The device’s EID once the SM-DP+ reported it'),
    lastError: z
      .object({
        at: z.string(),
        notificationPoint: z.number().int().describe('SGP.22 ES2+ notification point: 2 confirmation, 3 BPP download, 4 BPP installation'),
        reasonCode: z.string().nullable().describe('SGP.22 reason code, e.g. 4.2'),
        message: z.string().nullable(),
      })
      .nullable()
      .describe('The last failed download or installation the SM-DP+ reported; null when none'),
    suspended: z.boolean().describe('Data stopped by POST /partner/esims/{iccid}/suspend'),
    createdAt: z.string(),
    updatedAt: z.string(),
    livemode: z.boolean().describe('false for test mode (a test key’s data, contract §14); true for live'),
  }),
  'Esim',
  'both',
);

/** The partner (never its test account id: `livemode` tells the mode, §14). */
export const adminEsimView = component(esimStateView.extend({ partnerId: z.string().describe('The partner, whichever the mode (livemode says which)') }), 'AdminEsim', 'admin');

function toBundleView(bundle: ordersV1.Bundle, livemode: boolean): z.input<typeof bundleView> {
  return {
    orderId: bundle.orderId,
    planId: bundle.planId,
    planName: bundle.planName,
    dataMb: bundle.dataMb,
    dataUsedMb: bundle.dataUsedMb,
    validityDays: bundle.validityDays,
    status: fromProtoEnum(bundleStatuses, ordersV1.BundleStatus, bundle.status, 'bundle status'),
    activatedAt: bundle.activatedAt ?? null,
    expiresAt: bundle.expiresAt ?? null,
    livemode,
  };
}

export function toEsimView(esim: ordersV1.EsimView): z.input<typeof esimStateView> {
  const usage = esim.usage;
  const livemode = livemodeOf(esim.partnerId);
  return {
    iccid: esim.iccid,
    orderId: esim.orderId,
    status: fromProtoEnum(esimStatuses, ordersV1.EsimStatus, esim.status, 'eSIM status'),
    smdpAddress: esim.smdpAddress,
    matchingId: esim.matchingId,
    activationCode: esim.activationCode,
    appleInstallUrl: esim.appleInstallUrl,
    countries: esim.countries,
    region: esim.region ?? null,
    usage: {
      dataTotalMb: usage?.dataTotalMb ?? 0,
      dataUsedMb: usage?.dataUsedMb ?? 0,
      dataRemainingMb: usage?.dataRemainingMb ?? 0,
      updatedAt: usage?.updatedAt || esim.updatedAt,
    },
    bundles: esim.bundles.map((bundle) => toBundleView(bundle, livemode)),
    eid: esim.eid ?? null,
    lastError: esim.lastError
      ? { at: esim.lastError.at, notificationPoint: esim.lastError.notificationPoint, reasonCode: esim.lastError.reasonCode ?? null, message: esim.lastError.message ?? null }
      : null,
    suspended: esim.suspended,
    createdAt: esim.createdAt,
    updatedAt: esim.updatedAt,
    livemode,
  };
}

export function toAdminEsimView(esim: ordersV1.EsimView): z.input<typeof adminEsimView> {
  return { ...toEsimView(esim), partnerId: partnerIdOf(esim.partnerId) };
}
