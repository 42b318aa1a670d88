import { withTransaction } from '@esim/postgres';
import type { ProvisioningState } from '../clients/provisioning.js';
import { unitOrdersOf } from '../store/groupStore.js';
import { findOrder, lockProcessingOrder, staleProcessingOrders, type ProcessingCursor } from '../store/orderStore.js';
import { orderLogFields } from './customerLog.js';
import type { OrdersDeps } from './deps.js';
import { modeOf, ordersSwept } from './metrics.js';
import { isGroup, type Order } from './order.js';
import { applyUnitFailure } from './recordProvisioningFailure.js';
import { applyProvisioned } from './recordProvisioned.js';
import { applyRefunded } from './recordRefund.js';

export interface ProcessingSweepResult {
  /** Provisioning had the eSIM: recorded as provisioning.succeeded would have. */
  provisioned: string[];
  /** Provisioning failed for good: refunded, then recorded as wallet.order.refunded would have. */
  failed: string[];
  /** Provisioning is still retrying the supplier: left alone. */
  inProgress: string[];
  /** Provisioning never got orders.order.paid: left for an operator. */
  unknown: string[];
  /** Provisioning, the supplier or the wallet could not answer: tried again next round. */
  errors: string[];
  /** Where the next round should continue; undefined when this one reached the newest stale order. */
  next?: ProcessingCursor;
}

export type SweepOutcome = 'provisioned' | 'failed' | 'in_progress' | 'unknown' | 'error' | 'settled_meanwhile';

/**
 * Settles orders left 'processing' past `olderThanMs`: a result event
 * (provisioning.succeeded, provisioning.failed, wallet.order.refunded) that
 * was lost, e.g. dead-lettered after maxDeliver, would otherwise leave the
 * order unsettled and its price held forever. Provisioning owns the answer:
 * - succeeded: the eSIM is recorded exactly as the event's consumer would
 *   (applyProvisioned: same state, same outbox events);
 * - failed for good: the wallet refunds (RefundOrder, idempotent per order:
 *   it answers an earlier refund rather than making a second), then the
 *   order fails exactly as wallet.order.refunded would (applyRefunded);
 * - still trying: nothing; never heard of it: logged as an error and counted
 *   (orders.order.paid goes through our outbox, so that is a lost message an
 *   operator must redrive).
 * The owners are asked before any lock is taken; each answer is then applied
 * in its own transaction that locks the order FOR UPDATE SKIP LOCKED and
 * re-checks that it is still processing. So replicas sweep side by side, a
 * consumer applying a late event is never raced (it holds the lock, the
 * sweeper skips the order), and a late event after the sweep finds the order
 * settled and changes nothing. Money: the only effect outside our database is
 * RefundOrder, which cannot refund twice.
 */
export async function settleProcessingOrders(
  deps: OrdersDeps,
  options: { olderThanMs: number; maxOrders: number; after?: ProcessingCursor; signal?: AbortSignal },
): Promise<ProcessingSweepResult> {
  const result: ProcessingSweepResult = { provisioned: [], failed: [], inProgress: [], unknown: [], errors: [] };
  const { orders, last } = await staleProcessingOrders(deps.pool, options.olderThanMs, options.maxOrders, options.after);
  for (const order of orders) {
    // Stopping (shutdown) ends the round between orders; the next round (any replica's) starts from the oldest again.
    if (options.signal?.aborted) return result;
    const outcome = await settleOne(deps, order);
    ordersSwept.add(1, { state: outcome, ...modeOf(order.partnerId) });
    if (outcome === 'provisioned') result.provisioned.push(order.id);
    else if (outcome === 'failed') result.failed.push(order.id);
    else if (outcome === 'in_progress') result.inProgress.push(order.id);
    else if (outcome === 'unknown') result.unknown.push(order.id);
    else if (outcome === 'error') result.errors.push(order.id);
  }
  if (last && orders.length === options.maxOrders) result.next = last;
  return result;
}

/** One order: ask, then apply under the lock. Never throws, so one order's trouble never stops the others. */
async function settleOne(deps: OrdersDeps, order: Order): Promise<SweepOutcome> {
  const log = { ...orderLogFields(order), kind: order.kind };
  // A group is settled by its units (each swept on its own), in their transactions; provisioning knows only the units.
  if (isGroup(order)) return settleGroupRefundLost(deps, order).catch((error: unknown) => {
    deps.logger.warn({ ...log, err: error }, 'processing sweeper: could not read the group order\'s refund; retrying next round');
    return 'error' as const;
  });
  let known: ProvisioningState;
  try {
    known = await deps.provisioning.provisioningState(order.id, order.partnerId);
  } catch (error) {
    deps.logger.warn({ ...log, err: error }, 'processing sweeper: provisioning could not say what became of the order; retrying next round');
    return 'error';
  }
  try {
    switch (known.state) {
      case 'in_progress':
        deps.logger.info(log, 'processing sweeper: provisioning is still retrying the supplier; left alone');
        return 'in_progress';
      case 'unknown':
        deps.logger.error(log, 'processing sweeper: provisioning never received orders.order.paid (a lost message); left for an operator, see runbook EventsFailedForGood');
        return 'unknown';
      case 'succeeded': {
        const applied = await withTransaction(deps.pool, async (db) => (await lockProcessingOrder(db, order.id)) !== undefined && applyProvisioned(db, deps.logger, known.esim, { via: 'sweeper' }));
        return applied ? 'provisioned' : 'settled_meanwhile';
      }
      case 'failed': {
        const groupId = order.groupOrderId;
        if (groupId === null) return await refundAndFail(deps, order, known.reason);
        // A unit has nothing of its own to refund: it fails, and its group settles if it was the last.
        const applied = await withTransaction(
          deps.pool,
          async (db) => (await lockProcessingOrder(db, order.id)) !== undefined && applyUnitFailure(db, deps.logger, order.id, groupId, known.reason),
        );
        return applied ? 'failed' : 'settled_meanwhile';
      }
    }
  } catch (error) {
    deps.logger.warn({ ...log, state: known.state, err: error }, 'processing sweeper: could not settle the order; retrying next round');
    return 'error';
  }
}

async function refundAndFail(deps: OrdersDeps, order: Order, reason: string): Promise<SweepOutcome> {
  // A late event may have settled it since the list was read; a provisioned order must never be refunded.
  if ((await findOrder(deps.pool, order.id))?.status !== 'processing') return 'settled_meanwhile';
  // The reason the wallet's own refund would have written (orders.order.provisioning_failed carries the same).
  const refund = await deps.wallet.refund({ orderId: order.id, partnerId: order.partnerId, reason });
  const applied = await withTransaction(
    deps.pool,
    async (db) =>
      (await lockProcessingOrder(db, order.id)) !== undefined &&
      applyRefunded(db, deps.logger, { orderId: order.id, amount: refund.amount, fallbackReason: reason }, { via: 'sweeper' }),
  );
  return applied ? 'failed' : 'settled_meanwhile';
}

/**
 * A group waiting for the refund of its missing units (its failure reason is
 * set): if the wallet has recorded it and wallet.order.refunded was lost, the
 * group settles as that event would have. The wallet's reservation says which
 * refund it recorded: released is the whole price (no unit provisioned),
 * captured the missing units' (some provisioned); held, none yet.
 */
async function settleGroupRefundLost(deps: OrdersDeps, group: Order): Promise<SweepOutcome> {
  if (group.failureReason === null) return 'in_progress';
  const reservation = await deps.wallet.reservation(group.id);
  if (!reservation || reservation.state === 'held') return 'in_progress';
  const units = await unitOrdersOf(deps.pool, group.id);
  const missing = units.filter((unit) => unit.status === 'failed').length;
  const amount = reservation.state === 'released' ? reservation.amount : missing * group.unitPrice;
  const applied = await withTransaction(
    deps.pool,
    async (db) =>
      (await lockProcessingOrder(db, group.id)) !== undefined &&
      applyRefunded(db, deps.logger, { orderId: group.id, amount, fallbackReason: group.failureReason ?? 'refunded by the wallet' }, { via: 'sweeper' }),
  );
  return applied ? 'failed' : 'settled_meanwhile';
}
