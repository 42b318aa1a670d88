import type { Pool } from '@esim/postgres';
import { startRetention as startRetentionJob, type RetentionRule } from '@esim/service';
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
 * batches (the shared retention job: any replica may run it, its queries
 * make no spans, a stop ends it after the statement in flight).
 */
export function startRetention(options: RetentionOptions): { stop(): Promise<unknown>; runOnce(): Promise<Record<string, number>> } {
  const rules: RetentionRule[] = [{ table: 'webhooks.events', prune: (db, batch) => deleteExpiredEvents(db, options.retentionMs, batch) }];
  const job = startRetentionJob({ pool: options.pool, logger: options.logger, rules, everyMs: options.everyMs, batch: options.batch, maxBatches: options.maxBatches });
  return { runOnce: () => job.runOnce(), stop: async () => job.stop() };
}
