import type { Stoppable } from '@esim/service';
import type { OrdersDeps } from '../domain/deps.js';
import { settlePendingOrders } from '../domain/settlePendingOrders.js';
import { startRounds } from './rounds.js';

/** A round settles at most this many orders; the rest wait for the next round. */
const maxOrdersPerRound = 100;

/**
 * Runs settlePendingOrders every `intervalMs` (see startRounds). A failed
 * round (wallet or database unreachable) is logged and retried next round.
 */
export function startPendingSweeper(deps: OrdersDeps, options: { intervalMs: number; olderThanMs: number }): Stoppable {
  return startRounds(options.intervalMs, async (signal) => {
    try {
      const result = await settlePendingOrders(deps, { olderThanMs: options.olderThanMs, maxOrders: maxOrdersPerRound, signal });
      const settled = result.completed.length + result.dropped.length;
      if (settled > 0) deps.logger.info({ completed: result.completed.length, dropped: result.dropped.length }, 'sweeper round settled pending orders');
    } catch (error) {
      deps.logger.warn({ err: error }, 'sweeper round failed; retrying next round');
    }
  });
}
