import type { ServiceContext } from '@esim/service';
import type { Config } from '../config.js';
import { captureReservation } from '../domain/captureReservation.js';
import { refundOrderPrice } from '../domain/refund.js';

/**
 * Redeliveries back off from 1 s to a minute; 50 deliveries span well over half an hour of outage. Under a
 * burst, up to 64 waiting outcomes are applied per transaction (packages/events, `batch`): database work only.
 */
const delivery = { ackWaitMs: 30_000, maxDeliver: 50, retry: { firstMs: 1_000, maxMs: 60_000 }, batch: 64 };

/**
 * The order saga's outcomes, each applied exactly once: the event id is
 * recorded in the same transaction as the capture or the refund.
 */
export async function consumeOrderOutcomes({ consume, logger }: ServiceContext<Config>): Promise<void> {
  await consume({ durable: 'wallet_order_provisioned', type: 'orders.order.provisioned', ...delivery }, (event, db) =>
    captureReservation(db, logger, event.data),
  );
  await consume({ durable: 'wallet_order_failed', type: 'orders.order.provisioning_failed', ...delivery }, (event, db) =>
    refundOrderPrice(db, logger, { ...event.data, cause: 'provisioning_failed' }).then((outcome) => {
      if (outcome.kind === 'nothing' && outcome.why === 'no_reservation') logger.warn({ orderId: event.data.orderId }, 'failed order has no reservation; nothing was debited, nothing to refund');
    }),
  );
}
