import { testAccountSqlPattern } from '@esim/ids';
import type { Queryable } from '@esim/postgres';
import type { ReconciliationFinding, ReconciliationRun, ReconciliationTrigger } from '../domain/reconciliation.js';

/** SQL for orders.reconciliation_runs and orders.reconciliation_findings. */

interface RunRow {
  id: string;
  trigger: ReconciliationTrigger;
  started_at: Date;
  finished_at: Date | null;
}

interface FindingRow {
  run_id: string;
  kind: ReconciliationFinding['kind'];
  order_id: string | null;
  partner_id: string | null;
  amount: string | null;
  detail: string;
  action: ReconciliationFinding['action'];
}

export async function insertRun(db: Queryable, id: string, trigger: ReconciliationTrigger): Promise<void> {
  await db.query(`INSERT INTO orders.reconciliation_runs (id, trigger) VALUES ($1, $2)`, [id, trigger]);
}

export async function finishRun(db: Queryable, id: string, findings: ReconciliationFinding[]): Promise<void> {
  for (const [seq, finding] of findings.entries()) {
    await db.query(
      `INSERT INTO orders.reconciliation_findings (run_id, seq, kind, order_id, partner_id, amount, detail, action) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [id, seq, finding.kind, finding.orderId, finding.partnerId, finding.amount, finding.detail, finding.action],
    );
  }
  await db.query(`UPDATE orders.reconciliation_runs SET finished_at = clock_timestamp() WHERE id = $1`, [id]);
}

/** The latest finished runs, newest first, with their findings. */
export async function latestRuns(db: Queryable, limit: number, options: { trigger?: ReconciliationTrigger } = {}): Promise<ReconciliationRun[]> {
  const { rows } = await db.query<RunRow>(
    `SELECT id, trigger, started_at, finished_at FROM orders.reconciliation_runs
     WHERE finished_at IS NOT NULL AND ($2::text IS NULL OR trigger = $2)
     ORDER BY started_at DESC, id DESC LIMIT $1`,
    [limit, options.trigger ?? null],
  );
  if (rows.length === 0) return [];
  const findings = await db.query<FindingRow>(
    `SELECT run_id, kind, order_id, partner_id, amount::text, detail, action FROM orders.reconciliation_findings WHERE run_id = ANY($1::text[]) ORDER BY run_id, seq`,
    [rows.map((row) => row.id)],
  );
  return rows.map((row) => ({
    id: row.id,
    trigger: row.trigger,
    startedAt: row.started_at,
    finishedAt: row.finished_at!,
    findings: findings.rows
      .filter((finding) => finding.run_id === row.id)
      .map((finding) => ({
        kind: finding.kind,
        orderId: finding.order_id,
        partnerId: finding.partner_id,
        amount: finding.amount === null ? null : Number(finding.amount),
        detail: finding.detail,
        action: finding.action,
      })),
  }));
}

/** When the last daily run started, if any (every replica's timer asks; one of them runs). */
export async function lastDailyStart(db: Queryable): Promise<Date | undefined> {
  const { rows } = await db.query<{ started_at: Date }>(`SELECT max(started_at) AS started_at FROM orders.reconciliation_runs WHERE trigger = 'daily'`);
  return rows[0]?.started_at ?? undefined;
}

/** Paid live orders of the last `days` (processing or provisioned: each must have its debit), oldest first; test accounts' are not reconciled (docs/decisions.md). */
export async function paidOrdersSince(db: Queryable, days: number, limit: number): Promise<Array<{ id: string; partnerId: string; price: number }>> {
  const { rows } = await db.query<{ id: string; partner_id: string; price: string }>(
    `SELECT id, partner_id, price::text FROM orders.orders
     WHERE status IN ('processing', 'provisioned') AND created_at > now() - make_interval(days => $1) AND partner_id NOT LIKE $3
     ORDER BY created_at, id LIMIT $2`,
    [days, limit, testAccountSqlPattern],
  );
  return rows.map((row) => ({ id: row.id, partnerId: row.partner_id, price: Number(row.price) }));
}
