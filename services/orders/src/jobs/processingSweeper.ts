import type { Stoppable } from '@esim/service';
import type { OrdersDeps } from '../domain/deps.js';
import { settleProcessingOrders } from '../domain/settleProcessingOrders.js';
import type { ProcessingCursor } from '../store/orderStore.js';
import { startRounds } from './rounds.js';

/** A round looks at most this many orders (each may wait on the supplier, ≤ 15 s); the next round continues after them. */
const maxOrdersPerRound = 50;

/**
 * Runs settleProcessingOrders every `intervalMs` (see startRounds). Orders
 * left alone (still trying, unknown) stay at the head of the list, so rounds
 * walk on from where the last one stopped and start from the oldest again
 * once they reach the end: no order waits behind a stuck one for ever.
 */
export function startProcessingSweeper(deps: OrdersDeps, options: { intervalMs: number; olderThanMs: number }): Stoppable {
  let after: ProcessingCursor | undefined;
  return startRounds(options.intervalMs, async (signal) => {
    try {
      const result = await settleProcessingOrders(deps, { olderThanMs: options.olderThanMs, maxOrders: maxOrdersPerRound, after, signal });
      after = result.next;
      const settled = result.provisioned.length + result.failed.length;
      if (settled + result.unknown.length + result.errors.length > 0) {
        deps.logger.info(
          { provisioned: result.provisioned.length, failed: result.failed.length, inProgress: result.inProgress.length, unknown: result.unknown.length, errors: result.errors.length },
          'processing sweeper round finished',
        );
      }
    } catch (error) {
      after = undefined;
      deps.logger.warn({ err: error }, 'processing sweeper round failed; retrying next round');
    }
  });
}
