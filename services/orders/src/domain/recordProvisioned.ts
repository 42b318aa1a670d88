import { enqueueEvent, PermanentEventError, type EventData, type EventEnvelope } from '@esim/events';
import type { PoolClient } from '@esim/postgres';
import type { Logger } from '@esim/telemetry';
import { findOrder, markProvisioned, schema } from '../store/orderStore.js';
import { wasWipedTestOrder } from '../store/testAccountStore.js';
import { orderLogFields } from './customerLog.js';
import { modeOf, orderTimeToProvisioned, ordersProvisioned } from './metrics.js';
import type { VisibleOrder } from './order.js';
import { partnerOrderViewOf } from './partnerView.js';
import { qrCodeOf } from './qrCode.js';
import { esimLifecycle } from '../esims/lifecycle.js';
import { settleGroup } from './groupOrders.js';

/** The consumer of provisioning.succeeded: applyProvisioned, in its exactly-once transaction. */
export function recordProvisioned(logger: Logger) {
  return async (event: EventEnvelope<'provisioning.succeeded'>, db: PoolClient): Promise<void> => {
    await applyProvisioned(db, logger, event.data, { eventId: event.id });
  };
}

/**
 * The supplier delivered the eSIM (for a top-up: added the bundle to it):
 * the order becomes 'provisioned' with it, its eSIM and bundle are recorded
 * (through the eSIM lifecycle), and `orders.order.provisioned` (the wallet captures the reservation) and
 * the partner's `provision.provisioned` are written in the same transaction.
 * The event's consumer and the processing sweeper (settleProcessingOrders)
 * both land here, so a sweep writes exactly what the event would have; an
 * order already provisioned (the same outcome reported twice, or a late event
 * after a sweep) is left as it is. True when this call provisioned it.
 */
export async function applyProvisioned(
  db: PoolClient,
  logger: Logger,
  data: EventData<'provisioning.succeeded'>,
  source: { eventId: string } | { via: 'sweeper' },
): Promise<boolean> {
  const { orderId, supplierReference, ...esim } = data;
  const order = await findOrder(db, orderId, { forUpdate: true });
  if (!order) {
    if (await wasWipedTestOrder(db, orderId)) {
      logger.info({ orderId, ...source }, 'provisioning.succeeded for a wiped test order; ignored');
      return false;
    }
    throw new PermanentEventError(`provisioning.succeeded for unknown order ${orderId}`);
  }
  if (order.status !== 'processing') {
    const level = order.status === 'provisioned' ? 'info' : 'error';
    logger[level]({ orderId, status: order.status, ...source }, 'provisioning.succeeded for an order not processing; ignored');
    return false;
  }
  const qrCode = await qrCodeOf(esim.activationCode);
  const provisioned = (await markProvisioned(db, orderId, { ...esim, qrCode }, supplierReference)) as VisibleOrder;
  if (provisioned.groupOrderId !== null) {
    // A group's unit: its eSIM is recorded as a single order's; the group announces itself once every unit is settled.
    await esimLifecycle.recordProvisioned(db, logger, provisioned);
    await settleGroup(db, logger, provisioned.groupOrderId);
    logger.info({ orderId, groupOrderId: provisioned.groupOrderId, unit: provisioned.unit, supplierReference, ...source }, 'group unit provisioned');
    return true;
  }
  await enqueueEvent(db, schema, 'orders.order.provisioned', { orderId, partnerId: provisioned.partnerId });
  await enqueueEvent(db, schema, 'partner.notification', {
    partnerId: provisioned.partnerId,
    type: 'provision.provisioned',
    orderId,
    payload: { order: partnerOrderViewOf(provisioned) },
  });
  // After provision.provisioned: notifications that arrived early announce their effects after it.
  await esimLifecycle.recordProvisioned(db, logger, provisioned);
  ordersProvisioned.add(1, modeOf(provisioned.partnerId));
  orderTimeToProvisioned.record(Math.max(0, Date.now() - provisioned.createdAt.getTime()), modeOf(provisioned.partnerId));
  logger.info({ ...orderLogFields(provisioned), supplierReference, ...source }, 'order provisioned');
  return true;
}
