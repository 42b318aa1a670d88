import type { BundleStatus, EsimStatus } from '@esim/vocabulary';

/** An eSIM as the orders service holds it (contract §13); created when its first order is provisioned. */
export interface EsimRecord {
  iccid: string;
  partnerId: string;
  /** The first order's id. */
  orderId: string;
  /** The id partners are shown: the group's for a group order's eSIM (its unit order is internal), else orderId. */
  shownOrderId: string;
  status: EsimStatus;
  smdpAddress: string;
  matchingId: string;
  activationCode: string;
  /** The first plan's: every top-up must cover them. */
  countries: string[];
  region: string | null;
  installedAt: Date | null;
  usageUpdatedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  /** The device's EID once the SM-DP+ reported it (contract §13). */
  eid: string | null;
  /** The last failed download or installation the SM-DP+ reported. */
  lastError: EsimError | null;
  /** Data stopped at the connectivity provider (contract §13 suspension). */
  suspended: boolean;
  deletedAt: Date | null;
}

/** Contract §13 lastError: where the download or installation failed and why. */
export interface EsimError {
  at: Date;
  notificationPoint: number;
  reasonCode: string | null;
  message: string | null;
}

/** One bundle: the data a provisioned order bought on its eSIM. */
export interface BundleRecord {
  orderId: string;
  /** As EsimRecord.shownOrderId. */
  shownOrderId: string;
  iccid: string;
  seq: number;
  planId: string;
  planName: string;
  dataMb: number;
  dataUsedMb: number;
  validityDays: number;
  status: BundleStatus;
  activatedAt: Date | null;
  expiresAt: Date | null;
  threshold80At: Date | null;
  threshold100At: Date | null;
}

/** An eSIM with its bundles in creation order: what every eSIM view is drawn from. */
export interface EsimState {
  esim: EsimRecord;
  bundles: BundleRecord[];
}

export interface Usage {
  dataTotalMb: number;
  dataUsedMb: number;
  dataRemainingMb: number;
  updatedAt: Date;
}

/** Contract §13: sums the bundles that are neither expired nor cancelled; remaining never negative. */
export function usageOf({ esim, bundles }: EsimState): Usage {
  const counted = bundles.filter((bundle) => bundle.status !== 'expired' && bundle.status !== 'cancelled');
  const dataTotalMb = counted.reduce((sum, bundle) => sum + bundle.dataMb, 0);
  const dataUsedMb = counted.reduce((sum, bundle) => sum + bundle.dataUsedMb, 0);
  return { dataTotalMb, dataUsedMb, dataRemainingMb: Math.max(0, dataTotalMb - dataUsedMb), updatedAt: esim.usageUpdatedAt ?? esim.createdAt };
}

/** The day count of a bundle's validity, from its activation. */
export function expiryOf(activatedAt: Date, validityDays: number): Date {
  return new Date(activatedAt.getTime() + validityDays * 86_400_000);
}

/** ICCIDs are 18–22 digits (contract §3): the rule lives in @esim/ids. */
export { iccidPattern } from '@esim/ids';
