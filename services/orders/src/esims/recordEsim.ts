import type { Queryable } from '@esim/postgres';
import type { Logger } from '@esim/telemetry';
import { findEsimState, insertBundle, insertEsim, lockEsimKey } from '../store/esimStore.js';
import { markApplied, unappliedFor } from '../store/notificationStore.js';
import { applyNotification } from './notification.js';
import type { VisibleOrder } from '../domain/order.js';

/** The supplier simulator's defaults, for an order placed before orders copied the plan's size. */
const fallbackDataMb = 1024;
const fallbackValidityDays = 30;

/**
 * A provisioned order's place on its eSIM, in the provisioning transaction:
 * a first order creates the eSIM (released) and its first bundle, a top-up
 * adds a queued bundle. Then every notification the supplier sent before
 * the platform knew the eSIM or the bundle is applied, in the order they
 * happened. Under the eSIM's lock, so a notification recorded meanwhile is
 * either seen here or applies itself after.
 */
export async function recordEsim(db: Queryable, logger: Logger, order: VisibleOrder): Promise<void> {
  const esim = order.esim;
  if (!esim) throw new Error(`provisioned order ${order.id} has no eSIM`);
  await lockEsimKey(db, esim.iccid);
  if (order.kind === 'esim') {
    const created = await insertEsim(db, {
      iccid: esim.iccid,
      partnerId: order.partnerId,
      orderId: order.id,
      smdpAddress: esim.smdpAddress,
      matchingId: esim.matchingId,
      activationCode: esim.activationCode,
      countries: order.countries,
      region: order.region,
    });
    if (!created) logger.error({ orderId: order.id, iccid: esim.iccid }, 'the supplier issued an ICCID the platform already holds; its eSIM row is kept as it was');
  }
  const state = await findEsimState(db, esim.iccid);
  if (!state || state.esim.partnerId !== order.partnerId) {
    logger.error({ orderId: order.id, iccid: esim.iccid }, 'provisioned order names an eSIM of another partner or none; no bundle recorded');
    return;
  }
  await insertBundle(db, {
    orderId: order.id,
    iccid: esim.iccid,
    planId: order.planId,
    planName: order.planName,
    dataMb: order.dataMb ?? fallbackDataMb,
    validityDays: order.validityDays ?? fallbackValidityDays,
  });
  for (const notification of await unappliedFor(db, esim.iccid)) {
    if (await applyNotification(db, await findEsimState(db, esim.iccid), notification)) await markApplied(db, notification.id);
  }
}
