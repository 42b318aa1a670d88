import { enqueueEvent, PermanentEventError, type EventEnvelope } from '@esim/events';
import type { PoolClient } from '@esim/postgres';
import type { Logger } from '@esim/telemetry';
import { findOrder, recordFailureReason, schema } from '../store/orderStore.js';

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
    if (!order) throw new PermanentEventError(`provisioning.failed for unknown order ${orderId}`);
    if (order.status !== 'processing' || order.failureReason !== null) {
      logger.info({ orderId, status: order.status, eventId: event.id }, 'provisioning.failed already recorded or order settled; ignored');
      return;
    }
    await recordFailureReason(db, orderId, reason);
    await enqueueEvent(db, schema, 'orders.order.provisioning_failed', { orderId, partnerId: order.partnerId, reason });
    logger.warn({ orderId, partnerId: order.partnerId, reason }, 'provisioning failed; refund requested');
  };
}
