import { metrics } from '@opentelemetry/api';
import { livemodeOf } from '@esim/ids';

/** How an attempt ended, as the SRE's counter names it. */
export type AttemptOutcome = 'succeeded' | 'failed' | 'retry' | 'no_endpoint' | 'refused';

const meter = metrics.getMeter('webhooks');

/**
 * What pages an SRE: outcomes by kind, attempts made, the lag partners feel,
 * and work in flight. Outcomes, attempts and lag carry `livemode` ("true" or
 * "false", from the event's account id, §14), so a live total or alert
 * selects livemode="true" and no test delivery is counted in it.
 */
export const deliveryMetrics = {
  outcomes: meter.createCounter('webhook_deliveries_total', { description: 'Delivery attempts by outcome (succeeded, failed, retry, no_endpoint, refused) and livemode' }),
  attempts: meter.createCounter('webhook_delivery_attempts_total', { description: 'HTTP requests sent to partners endpoints, by livemode' }),
  lagMs: meter.createHistogram('webhook_delivery_lag_ms', {
    unit: 'ms',
    description: 'From the event to its first successful delivery, by livemode',
    advice: { explicitBucketBoundaries: [50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000, 60_000, 300_000, 3_600_000, 86_400_000] },
  }),
  inFlight: meter.createUpDownCounter('webhook_deliveries_in_flight', { description: 'Attempts in flight in this process' }),
};

/** The mode label of an event's metrics: test deliveries never add to the live series. */
export function modeLabel(partnerId: string): { livemode: 'true' | 'false' } {
  return { livemode: livemodeOf(partnerId) ? 'true' : 'false' };
}
