import type { Pool, Queryable } from '@esim/postgres';
import { context, suppressTracing, type Logger } from '@esim/telemetry';
import type { Stoppable } from './define.js';

/**
 * One table's retention (contract §11, docs/retention.md): `prune` deletes
 * at most `batch` of the rows past their retention, oldest first, in one
 * statement, and answers how many went. Rows still in use (pending, not yet
 * applied) are never among them.
 */
export interface RetentionRule {
  /** The table, as named in docs/retention.md and in the job's log line. */
  table: string;
  prune(db: Queryable, batch: number): Promise<number>;
}

export interface RetentionLimits {
  /** Rows per statement: one statement never holds its locks long. */
  batch?: number;
  /** Statements per rule and run: a backlog is worked off over several runs, never in one long one. */
  maxBatches?: number;
  /** Aborted at shutdown: the run ends after the statement in flight. */
  signal?: AbortSignal;
}

/**
 * Applies each rule in turn, batch after batch, until a batch comes back
 * short or `maxBatches` is reached. Answers the rows deleted per table.
 */
export async function runRetention(db: Queryable, rules: readonly RetentionRule[], limits: RetentionLimits = {}): Promise<Record<string, number>> {
  const batch = limits.batch ?? 5_000;
  const maxBatches = limits.maxBatches ?? 100;
  const deleted: Record<string, number> = {};
  for (const rule of rules) {
    let total = 0;
    for (let i = 0; i < maxBatches && !limits.signal?.aborted; i += 1) {
      const n = await rule.prune(db, batch);
      total += n;
      if (n < batch) break;
    }
    deleted[rule.table] = total;
  }
  return deleted;
}

/**
 * The retention job of one service: every `everyMs` it runs its rules
 * (runRetention). Any replica may run it: two at once delete disjoint rows
 * or nothing. Its statements make no spans (a background job). The timer is
 * unref'd; `stop` aborts the run in flight after its current statement and
 * waits for it; safe to call twice. A failed run is logged and the next one
 * retries.
 */
export function startRetention(options: {
  pool: Pool;
  logger: Logger;
  rules: readonly RetentionRule[];
  everyMs: number;
  batch?: number;
  maxBatches?: number;
}): Stoppable & { runOnce(): Promise<Record<string, number>> } {
  const aborter = new AbortController();
  let running: Promise<Record<string, number>> | undefined;
  const runOnce = () => {
    running ??= context
      .with(suppressTracing(context.active()), () =>
        runRetention(options.pool, options.rules, { batch: options.batch, maxBatches: options.maxBatches, signal: aborter.signal }),
      )
      .then((deleted) => {
        const any = Object.values(deleted).some((n) => n > 0);
        if (any) options.logger.info({ deleted }, 'rows past their retention deleted');
        return deleted;
      })
      .finally(() => (running = undefined));
    return running;
  };
  const timer = setInterval(() => {
    runOnce().catch((error: unknown) => options.logger.warn({ err: error }, 'retention run failed; the next run retries'));
  }, options.everyMs);
  timer.unref();
  return {
    runOnce,
    async stop() {
      aborter.abort();
      clearInterval(timer);
      await running?.catch(() => ({}));
    },
  };
}
