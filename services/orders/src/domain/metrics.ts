import { livemodeOf } from '@esim/ids';
import { metrics } from '@esim/telemetry';

/** The business counters an SRE pages on (contract §12). */
const meter = metrics.getMeter('orders');

export const ordersCreated = meter.createCounter('orders_created_total', {
  description: 'Orders paid and queued for provisioning, by how the payment was confirmed (request, sweeper)',
});
export const ordersProvisioned = meter.createCounter('orders_provisioned_total', { description: 'Orders whose eSIM was stored' });
export const ordersFailed = meter.createCounter('orders_failed_total', { description: 'Orders failed for good, after their refund' });
export const ordersReplayed = meter.createCounter('orders_replayed_total', { description: 'CreateOrder calls answered from an earlier request' });
/** The SLO an SRE pages on for orders: from the order's creation to its eSIM stored (supplier time included). */
export const orderTimeToProvisioned = meter.createHistogram('orders_time_to_provisioned_ms', {
  unit: 'ms',
  description: 'From order creation to provisioned',
  advice: { explicitBucketBoundaries: [250, 500, 1_000, 2_500, 5_000, 10_000, 30_000, 60_000, 120_000, 300_000, 900_000, 3_600_000] },
});
export const ordersCancelled = meter.createCounter('orders_cancelled_total', { description: 'Orders cancelled and refunded, by who completed them (request, sweeper)' });
export const supplierNotifications = meter.createCounter('orders_supplier_notifications_total', {
  description: 'Supplier notifications recorded, by type and outcome (applied, waiting, duplicate)',
});
/** Alert on state="unknown" (an order.paid provisioning never got) and state="error": each needs an operator (runbook EventsFailedForGood). */
export const ordersSwept = meter.createCounter('orders_swept_total', {
  description:
    'Orders left processing past ORDERS_PROCESSING_SWEEP_AFTER_MS that the sweeper looked at, by outcome (provisioned, failed, in_progress, unknown, error); the last three are counted at every look',
});

/**
 * The `livemode` label every order counter carries (contract §14): test
 * orders are counted, but apart, so a live dashboard or alert that selects
 * livemode="true" never counts a test order.
 */
export function modeOf(accountId: string): { livemode: 'true' | 'false' } {
  return { livemode: livemodeOf(accountId) ? 'true' : 'false' };
}
