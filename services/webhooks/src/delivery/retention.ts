import { context } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import type { Pool } from '@esim/postgres';
import type { Logger } from '@esim/telemetry';
import { deleteExpiredEvents } from '../store/retentionStore.js';

export interface RetentionOptions {
  pool: Pool;
  logger: Logger;
  /** Events (and their deliveries) older than this are deleted: 30 days, what recover reaches back (§9). */
  retentionMs: number;
  /** How often the job runs. */
  everyMs: number;
  /** Events deleted per statement, so one run never holds long locks; a run stops after `maxBatches`. */
  batch?: number;
  maxBatches?: number;
}

/**
 * The webhooks tables grow with traffic (§11): every `everyMs`, the events
 * past the retention go, with their deliveries, oldest first, in bounded
 * batches. Any replica may run it; two at once delete disjoint rows or
 * nothing. Its queries make no spans (a background poll).
 */
export function startRetention(options: RetentionOptions): { stop(): Promise<void>; runOnce(): Promise<number> } {
  const batch = options.batch ?? 5_000;
  const maxBatches = options.maxBatches ?? 100;
  let running: Promise<number> | undefined;
  const runOnce = () => {
    running ??= context
      .with(suppressTracing(context.active()), async () => {
        let deleted = 0;
        for (let i = 0; i < maxBatches; i += 1) {
          const n = await deleteExpiredEvents(options.pool, options.retentionMs, batch);
          deleted += n;
          if (n < batch) break;
        }
        if (deleted > 0) options.logger.info({ deleted }, 'webhook events past their retention deleted');
        return deleted;
      })
      .finally(() => (running = undefined));
    return running;
  };
  const timer = setInterval(() => {
    runOnce().catch((error: unknown) => options.logger.warn({ err: error }, 'webhook event retention failed; next run retries'));
  }, options.everyMs);
  timer.unref();
  return {
    runOnce,
    async stop() {
      clearInterval(timer);
      await running?.catch(() => 0);
    },
  };
}
