import { z } from 'zod';
import { commonEnv, durationMs, loadConfig } from '@esim/config';
import { grpcAddress, serviceEnv } from '@esim/service';

const schema = z.object({
  ...serviceEnv(9095),
  GRPC_PORT: commonEnv.port(50054),
  DATABASE_URL: commonEnv.DATABASE_URL,
  CURRENCY: commonEnv.CURRENCY,
  CATALOG_ADDR: grpcAddress('127.0.0.1:50052'),
  WALLET_ADDR: grpcAddress('127.0.0.1:50053'),
  PROVISIONING_ADDR: grpcAddress('127.0.0.1:50056'),
  /** How long after provisioning an unused order can be cancelled (contract §13): `30d`, `12h`, `90m`, `30s`, `500ms`. */
  ORDER_CANCEL_WINDOW: z
    .string()
    .default('30d')
    .transform((text, context) => {
      const ms = durationMs(text);
      if (ms === undefined || ms <= 0) {
        context.addIssue({ code: 'custom', message: 'must be a duration such as 30d, 12h, 90m or 30s' });
        return z.NEVER;
      }
      return ms;
    }),
  /** Age at which a cancellation left half done (a crash between revoke and refund) is the cancel sweeper's to complete. */
  ORDERS_CANCEL_SWEEP_AFTER_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(30_000),
  /** How often the sweeper looks for orders left `pending` (a crash or an outage between Reserve and commit). */
  ORDERS_SWEEP_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(5_000),
  /**
   * Age at which a `pending` order is the sweeper's to settle. Well above the
   * Reserve deadline, so a request still waiting on the wallet is never raced.
   */
  ORDERS_SWEEP_AFTER_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(30_000),
  /** How often the processing sweeper looks for orders whose result event was lost (each look asks provisioning). */
  ORDERS_PROCESSING_SWEEP_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
  /**
   * Age (since the order's last change) at which a `processing` order is the
   * processing sweeper's to settle from provisioning's answer. Twice
   * provisioning's default retry window (PROVISIONING_RETRY_WINDOW_MS, 15 min),
   * so a healthy order has long had its result; a lower value is still safe
   * (only final answers are applied) but asks provisioning more often.
   */
  ORDERS_PROCESSING_SWEEP_AFTER_MS: z.coerce.number().int().min(1_000).max(604_800_000).default(1_800_000),
  /**
   * How long a plan price is kept in this process without a word from the
   * catalog: the staleness bound only if a `catalog.plan.changed` is lost
   * (otherwise a change reaches every replica in milliseconds). 0 asks the
   * catalog for every order.
   */
  ORDERS_PRICE_CACHE_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
  /** How often the reconciliation (contract §11) runs by itself: daily. One replica runs it (an advisory lock and the last run's time). */
  ORDERS_RECONCILE_INTERVAL_MS: z.coerce.number().int().min(1_000).max(604_800_000).default(86_400_000),
  /**
   * Age at which a debit still held is the reconciliation's to look at: far
   * above every deadline of the order path (a healthy order is paid, failed
   * or dropped within minutes).
   */
  ORDERS_RECONCILE_HELD_AFTER_MS: z.coerce.number().int().min(1_000).max(604_800_000).default(3_600_000),
  /**
   * Test-mode orders (§14) created at once by this process; the rest wait
   * their turn, so a saturated test key queues instead of slowing live
   * orders. Live orders are never gated.
   */
  ORDERS_TEST_MODE_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  /** Test-mode orders waiting for a turn in this process; past it a test order is refused 503 (retry). */
  ORDERS_TEST_MODE_QUEUE_MAX: z.coerce.number().int().min(0).max(10_000).default(200),
});

export type Config = z.output<typeof schema>;

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return loadConfig(schema, env);
}
