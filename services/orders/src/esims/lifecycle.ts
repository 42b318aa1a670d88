import { driveTestEsim } from './driveTestEsim.js';
import { getEsim, listEsims } from './esimReads.js';
import { activateNext } from './notification.js';
import { recordEsim } from './recordEsim.js';
import { recordSmdpReport } from './recordSmdpReport.js';
import { recordSupplierNotification } from './recordSupplierNotification.js';
import { setEsimSuspended } from './setSuspended.js';

/**
 * The eSIM lifecycle's seam (contract §8, §13): everything that happens to
 * an eSIM after its first order is provisioned — its bundles, the two
 * upstreams' reports (installation, failed installs, deletion, use,
 * expiry), suspension, and the reads of the eSIM view. The purchase saga
 * reaches it through `recordProvisioned`, the cancellation saga through
 * `activateNext`; the transports (gRPC
 * handlers, the event consumers) call the other entries. Nothing in here
 * reads or writes an order's state; the saga's files do not touch esims,
 * bundles or supplier_notifications.
 */
export const esimLifecycle = {
  /** A provisioned order's place on its eSIM (a first order creates it; a top-up adds a bundle), in the saga's transaction. */
  recordProvisioned: recordEsim,
  /** A cancelled bundle was the active one: the oldest queued bundle starts now (§13: one active at a time). */
  activateNext,
  /** The connectivity provider's signed notification, verified by the gateway. */
  recordSupplierNotification,
  /** The consumer of the SM-DP+'s reports (provisioning.esim.progress). */
  recordSmdpReport,
  setSuspended: setEsimSuspended,
  /** Test mode's helpers (§14): the test-mode simulator plays the traveller; answers once its effects show. */
  driveTestEsim,
  getEsim,
  listEsims,
} as const;

export type EsimLifecycle = typeof esimLifecycle;
