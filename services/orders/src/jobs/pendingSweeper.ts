import type { Stoppable } from '@esim/service';
import type { OrdersDeps } from '../domain/deps.js';
import { settlePendingOrders } from '../domain/settlePendingOrders.js';

/** A round settles at most this many orders; the rest wait for the next round. */
const maxOrdersPerRound = 100;

/**
 * Runs settlePendingOrders every `intervalMs`. One round at a time; the timer
 * is unref'd so it never keeps the process alive; `stop` waits for the round
 * in flight and is safe to call twice. A failed round (wallet or database
 * unreachable) is logged and retried next round.
 */
export function startPendingSweeper(deps: OrdersDeps, options: { intervalMs: number; olderThanMs: number }): Stoppable {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let round: Promise<void> = Promise.resolve();

  const runRound = async () => {
    try {
      const result = await settlePendingOrders(deps, { olderThanMs: options.olderThanMs, maxOrders: maxOrdersPerRound });
      const settled = result.completed.length + result.dropped.length;
      if (settled > 0) deps.logger.info({ completed: result.completed.length, dropped: result.dropped.length }, 'sweeper round settled pending orders');
    } catch (error) {
      deps.logger.warn({ err: error }, 'sweeper round failed; retrying next round');
    }
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      round = runRound().finally(schedule);
    }, options.intervalMs);
    timer.unref();
  };
  schedule();

  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await round;
    },
  };
}
