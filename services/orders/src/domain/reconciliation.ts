import { metrics } from '@esim/telemetry';
import { AppError } from '@esim/errors';
import { livemodeOf } from '@esim/ids';
import type { Pool } from '@esim/postgres';
import { randomUUID } from 'node:crypto';
import { findOrder } from '../store/orderStore.js';
import { finishRun, insertRun, latestRuns, paidOrdersSince } from '../store/reconciliationStore.js';
import type { OrdersDeps } from './deps.js';

/**
 * The reconciliation (contract §11), daily and on an operator's demand: the
 * wallet's ledger against the orders, each mismatch recorded with what was
 * done about it.
 *
 * | kind | found when | done |
 * |---|---|---|
 * | held_debit_without_order | a reservation still held after `heldAfterMs` whose order does not exist (dropped by the pending sweeper, never created) | released: its price back (RefundOrder, idempotent per order) |
 * | failed_order_not_refunded | a reservation still held whose order failed | refunded (RefundOrder) |
 * | held_debit_not_settled | a reservation still held whose order is provisioned or cancelled (the capture or refund never applied) | flagged |
 * | order_paid_without_debit | a processing or provisioned order of the last `paidWithinDays` with no reservation | flagged |
 * | balance_not_ledger_sum | a wallet whose balance differs from the sum of its ledger | flagged |
 *
 * A pending order is the pending sweeper's (never touched here); orders
 * older than `paidWithinDays` were reconciled by earlier runs. The supplier
 * offers no query of its eSIMs, so "revoked upstream but sold here" is
 * caught by the cancel saga itself (#23), not listed here.
 * One run at a time across replicas: a session advisory lock.
 * Live accounts only (contract §14: no test amount in a live report): test
 * orders and test wallets are skipped on both sides, here too in case a
 * wallet of an older version still lists them (docs/decisions.md).
 */
export type ReconciliationTrigger = 'operator' | 'daily';
export type FindingKind = 'held_debit_without_order' | 'failed_order_not_refunded' | 'held_debit_not_settled' | 'order_paid_without_debit' | 'balance_not_ledger_sum';

export interface ReconciliationFinding {
  kind: FindingKind;
  orderId: string | null;
  partnerId: string | null;
  amount: number | null;
  detail: string;
  action: 'released' | 'refunded' | 'flagged';
}

export interface ReconciliationRun {
  id: string;
  trigger: ReconciliationTrigger;
  startedAt: Date;
  finishedAt: Date;
  findings: ReconciliationFinding[];
}

export interface ReconciliationOptions {
  /** A reservation held longer than this is looked at (a healthy order is paid, failed or dropped within minutes). */
  heldAfterMs: number;
  /** How far back paid orders are checked for their debit. */
  paidWithinDays: number;
}

const lockKey = 'orders.reconciliation';
const maxPaidOrders = 5_000;

const meter = metrics.getMeter('orders');
/** The latest run's mismatches, by kind (every replica reports the same run; alerts take the max). */
const latestByKind = new Map<FindingKind, number>();
const kinds: FindingKind[] = ['held_debit_without_order', 'failed_order_not_refunded', 'held_debit_not_settled', 'order_paid_without_debit', 'balance_not_ledger_sum'];
const mismatchesGauge = meter.createObservableGauge('reconciliation_mismatches', { description: 'Mismatches the latest reconciliation found, by kind (contract §11)' });
mismatchesGauge.addCallback((result) => {
  for (const kind of kinds) result.observe(latestByKind.get(kind) ?? 0, { kind });
});
const runsCounter = meter.createCounter('reconciliation_runs_total', { description: 'Reconciliation runs finished, by trigger' });

function remember(run: ReconciliationRun | undefined): void {
  latestByKind.clear();
  for (const finding of run?.findings ?? []) latestByKind.set(finding.kind, (latestByKind.get(finding.kind) ?? 0) + 1);
}

/** Reads the latest run into the gauge (each replica, on a timer: the run may have been another's). */
export async function refreshReconciliationGauge(pool: Pool): Promise<void> {
  remember((await latestRuns(pool, 1))[0]);
}

/**
 * Runs the reconciliation once. `wait`: an operator's run waits for one under
 * way (up to `waitMs`) and then runs its own; the daily job skips instead
 * (undefined) when another replica holds the lock.
 */
export async function runReconciliation(
  deps: OrdersDeps,
  trigger: ReconciliationTrigger,
  options: ReconciliationOptions,
  lock: { wait: boolean; waitMs?: number } = { wait: trigger === 'operator' },
): Promise<ReconciliationRun | undefined> {
  const session = await deps.pool.connect();
  let locked = false;
  try {
    const deadline = Date.now() + (lock.waitMs ?? 60_000);
    for (;;) {
      const { rows } = await session.query<{ locked: boolean }>(`SELECT pg_try_advisory_lock(hashtext($1)) AS locked`, [lockKey]);
      locked = rows[0]!.locked;
      if (locked) break;
      if (!lock.wait) return undefined;
      if (Date.now() > deadline) throw new AppError('UNAVAILABLE', 'A reconciliation is running; retry shortly.');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const id = `rec_${randomUUID().replaceAll('-', '')}`;
    await insertRun(deps.pool, id, trigger);
    const startedAt = new Date();
    const findings = await compare(deps, options);
    await finishRun(deps.pool, id, findings);
    const run = (await latestRuns(deps.pool, 1, { trigger }))[0] ?? { id, trigger, startedAt, finishedAt: new Date(), findings };
    remember(run);
    runsCounter.add(1, { trigger });
    deps.logger[findings.length > 0 ? 'warn' : 'info']({ runId: id, trigger, mismatches: findings.length }, 'reconciliation finished');
    return run;
  } finally {
    if (locked) await session.query(`SELECT pg_advisory_unlock(hashtext($1))`, [lockKey]).catch(() => undefined);
    session.release();
  }
}

async function compare(deps: OrdersDeps, options: ReconciliationOptions): Promise<ReconciliationFinding[]> {
  const findings: ReconciliationFinding[] = [];
  const paid = await paidOrdersSince(deps.pool, options.paidWithinDays, maxPaidOrders);
  const wallet = await deps.wallet.reconciliationSnapshot({ heldOlderThanMs: options.heldAfterMs, orderIds: paid.map((order) => order.id) });
  const live = (item: { partnerId: string }) => livemodeOf(item.partnerId);
  const snapshot = { held: wallet.held.filter(live), reservations: wallet.reservations, unbalanced: wallet.unbalanced.filter(live) };

  for (const reservation of snapshot.held) {
    const order = await findOrder(deps.pool, reservation.orderId);
    const base = { orderId: reservation.orderId, partnerId: reservation.partnerId, amount: reservation.amount };
    if (!order) {
      await deps.wallet.refund({ orderId: reservation.orderId, partnerId: reservation.partnerId, reason: 'reconciliation: debit without an order' });
      findings.push({ ...base, kind: 'held_debit_without_order', detail: 'A debit was held for an order that does not exist; its price was given back.', action: 'released' });
    } else if (order.status === 'failed') {
      await deps.wallet.refund({ orderId: reservation.orderId, partnerId: reservation.partnerId, reason: `reconciliation: order failed (${order.planName})` });
      findings.push({ ...base, kind: 'failed_order_not_refunded', detail: 'The order failed but its debit was still held; it was refunded.', action: 'refunded' });
    } else if (order.status === 'provisioned' || order.status === 'cancelled') {
      findings.push({ ...base, kind: 'held_debit_not_settled', detail: `The order is ${order.status} but its debit is still held (a capture or refund that never applied).`, action: 'flagged' });
    }
    // pending: the pending sweeper's; processing: still being provisioned.
  }

  const debited = new Set(snapshot.reservations.map((reservation) => reservation.orderId));
  for (const order of paid) {
    if (debited.has(order.id)) continue;
    findings.push({ kind: 'order_paid_without_debit', orderId: order.id, partnerId: order.partnerId, amount: order.price, detail: 'The order was confirmed paid but the wallet holds no debit for it.', action: 'flagged' });
  }

  for (const wallet of snapshot.unbalanced) {
    findings.push({
      kind: 'balance_not_ledger_sum',
      orderId: null,
      partnerId: wallet.partnerId,
      amount: wallet.balance - wallet.ledgerSum,
      detail: `The balance ${wallet.balance} differs from the sum of the ledger ${wallet.ledgerSum}.`,
      action: 'flagged',
    });
  }
  return findings;
}

/** The latest runs, newest first (GET /admin/v1/reconciliation). */
export async function listReconciliationRuns(pool: Pool, limit: number): Promise<ReconciliationRun[]> {
  const runs = await latestRuns(pool, Math.min(Math.max(limit, 1), 50));
  return runs;
}
