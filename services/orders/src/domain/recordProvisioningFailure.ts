import { enqueueEvent, PermanentEventError, type EventEnvelope } from '@esim/events';
import type { PoolClient, Queryable } from '@esim/postgres';
import type { Logger } from '@esim/telemetry';
import { markUnitFailed } from '../store/groupStore.js';
import { findOrder, recordFailureReason, schema } from '../store/orderStore.js';
import { wasWipedTestOrder } from '../store/testAccountStore.js';
import { settleGroup } from './groupOrders.js';

/**
 * Provisioning failed for good: the reason is stored and
 * `orders.order.provisioning_failed` asks the wallet to release and refund.
 * The order stays 'processing' until the refund is recorded
 * (recordRefund), so a partner never sees 'failed' before the money is back.
 * A second failure report for the same order changes nothing.
 */
export function recordProvisioningFailure(logger: Logger) {
  return async (event: EventEnvelope<'provisioning.failed'>, db: PoolClient): Promise<void> => {
    const { orderId, reason } = event.data;
    const order = await findOrder(db, orderId, { forUpdate: true });
    if (!order) {
      if (await wasWipedTestOrder(db, orderId)) return logger.info({ orderId, eventId: event.id }, 'provisioning.failed for a wiped test order; ignored');
      throw new PermanentEventError(`provisioning.failed for unknown order ${orderId}`);
    }
    if (order.status !== 'processing' || order.failureReason !== null) {
      logger.info({ orderId, status: order.status, eventId: event.id }, 'provisioning.failed already recorded or order settled; ignored');
      return;
    }
    if (order.groupOrderId !== null) {
      await applyUnitFailure(db, logger, order.id, order.groupOrderId, reason);
      return;
    }
    await recordFailureReason(db, orderId, reason);
    await enqueueEvent(db, schema, 'orders.order.provisioning_failed', { orderId, partnerId: order.partnerId, reason });
    logger.warn({ orderId, partnerId: order.partnerId, reason }, 'provisioning failed; refund requested');
  };
}

/** A group's unit failed for good: it fails at once (nothing of its own to refund) and the group settles if it was the last. */
export async function applyUnitFailure(db: Queryable, logger: Logger, unitId: string, groupId: string, reason: string): Promise<boolean> {
  const failed = await markUnitFailed(db, unitId, reason);
  if (!failed) return false;
  await settleGroup(db, logger, groupId);
  logger.warn({ orderId: unitId, groupOrderId: groupId, unit: failed.unit, reason }, 'group unit failed');
  return true;
}
