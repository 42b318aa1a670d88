import type { Stoppable } from '@esim/service';
import type { OrdersDeps } from '../domain/deps.js';
import { sweepCancellations } from '../domain/sweepCancellations.js';
import { startRounds } from './rounds.js';

const maxOrdersPerRound = 50;

/** Runs sweepCancellations every `intervalMs` (see startRounds); a failed round is retried next round. */
export function startCancelSweeper(deps: OrdersDeps, options: { intervalMs: number; olderThanMs: number }): Stoppable {
  return startRounds(options.intervalMs, async (signal) => {
    try {
      const result = await sweepCancellations(deps, { olderThanMs: options.olderThanMs, maxOrders: maxOrdersPerRound, signal });
      if (result.completed.length + result.refused.length > 0) {
        deps.logger.info({ completed: result.completed.length, refused: result.refused.length }, 'cancel sweeper round finished cancellations');
      }
    } catch (error) {
      deps.logger.warn({ err: error }, 'cancel sweeper round failed; retrying next round');
    }
  });
}
