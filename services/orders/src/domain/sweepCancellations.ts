import { AppError } from '@esim/errors';
import { staleCancellations } from '../store/cancelStore.js';
import { completeCancellation } from './completeCancellation.js';
import type { OrdersDeps } from './deps.js';
import type { VisibleOrder } from './order.js';

export interface CancelSweepResult {
  completed: string[];
  /** The supplier refused the revoke: the flag is cleared, the order stays provisioned. */
  refused: string[];
  /** Supplier or wallet unreachable: tried again next round. */
  deferred: string[];
}

/**
 * Completes cancellations left half done (cancel_requested_at older than
 * `olderThanMs`): a crash or an outage between the flag and the recorded
 * cancellation. Every step is idempotent (revoke, refund, record), so two
 * replicas sweeping the same order, or a sweep racing the partner's retry,
 * still refund once and announce once.
 */
export async function sweepCancellations(deps: OrdersDeps, options: { olderThanMs: number; maxOrders: number; signal?: AbortSignal }): Promise<CancelSweepResult> {
  const result: CancelSweepResult = { completed: [], refused: [], deferred: [] };
  for (const order of await staleCancellations(deps.pool, options.olderThanMs, options.maxOrders)) {
    // Stopping (shutdown) ends the round between orders; the flag keeps the rest for the next replica's round.
    if (options.signal?.aborted) break;
    try {
      await completeCancellation(deps, order as VisibleOrder, { via: 'sweeper', clearOnFailure: false });
      result.completed.push(order.id);
    } catch (error) {
      if (error instanceof AppError && error.code === 'ORDER_NOT_CANCELLABLE') result.refused.push(order.id);
      else {
        result.deferred.push(order.id);
        deps.logger.warn({ orderId: order.id, err: error }, 'cancel sweeper: cancellation not completed; retrying next round');
      }
    }
  }
  return result;
}
