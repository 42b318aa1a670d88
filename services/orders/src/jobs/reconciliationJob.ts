import type { Stoppable } from '@esim/service';
import type { OrdersDeps } from '../domain/deps.js';
import { refreshReconciliationGauge, runReconciliation, type ReconciliationOptions } from '../domain/reconciliation.js';
import { lastDailyStart } from '../store/reconciliationStore.js';
import { startRounds } from './rounds.js';

/**
 * The daily reconciliation: every replica looks once a minute (or each
 * interval, if shorter) and the first to find the last daily run older than
 * `intervalMs` runs it under the advisory lock; the others skip. Each look
 * also reads the latest run into this replica's gauge.
 */
export function startReconciliationJob(deps: OrdersDeps, options: ReconciliationOptions & { intervalMs: number }): Stoppable {
  return startRounds(Math.min(60_000, options.intervalMs), async () => {
    try {
      const last = await lastDailyStart(deps.pool);
      if (!last || Date.now() - last.getTime() >= options.intervalMs) await runReconciliation(deps, 'daily', options, { wait: false });
      await refreshReconciliationGauge(deps.pool);
    } catch (error) {
      deps.logger.warn({ err: error }, 'reconciliation round failed; retrying next round');
    }
  });
}
