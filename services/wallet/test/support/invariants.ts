import type { Queryable } from '@esim/postgres';

/**
 * Contract §6's invariants, read straight from the tables: for every
 * partner, balance = sum of the ledger; entries chain from 0 (each
 * balanceBefore is the previous balanceAfter) and never go below 0; an
 * order is debited at most once and refunded at most once, each reservation
 * matching its entries. Returns every violation found (none is the pass).
 */
export async function ledgerViolations(db: Queryable): Promise<string[]> {
  const violations: string[] = [];
  const found = async (label: string, sql: string) => {
    const { rows } = await db.query<Record<string, unknown>>(sql);
    for (const row of rows) violations.push(`${label}: ${JSON.stringify(row)}`);
  };
  await found(
    'balance is not the sum of the ledger',
    `SELECT w.partner_id, w.balance, COALESCE(sum(e.amount), 0)::bigint AS sum
     FROM wallet.wallets w LEFT JOIN wallet.ledger_entries e ON e.partner_id = w.partner_id
     GROUP BY w.partner_id, w.balance HAVING w.balance <> COALESCE(sum(e.amount), 0)`,
  );
  await found(
    'entries without a wallet',
    `SELECT DISTINCT e.partner_id FROM wallet.ledger_entries e LEFT JOIN wallet.wallets w USING (partner_id) WHERE w.partner_id IS NULL`,
  );
  await found(
    'broken chain',
    `SELECT id, partner_id, balance_before, balance_after, amount, previous_after FROM (
       SELECT e.*, lag(balance_after, 1, 0::bigint) OVER (PARTITION BY partner_id ORDER BY seq) AS previous_after,
              row_number() OVER (PARTITION BY partner_id ORDER BY seq) AS position
       FROM wallet.ledger_entries e) chained
     WHERE balance_before <> previous_after OR balance_after <> balance_before + amount OR balance_after < 0 OR seq <> position`,
  );
  await found('negative wallet', `SELECT partner_id, balance FROM wallet.wallets WHERE balance < 0`);
  await found(
    'order moved more than once',
    `SELECT order_id, type, count(*) FROM wallet.ledger_entries WHERE order_id IS NOT NULL GROUP BY order_id, type HAVING count(*) > 1`,
  );
  await found(
    'reservation does not match its entries',
    `SELECT r.order_id, r.state, r.amount, d.amount AS debit, f.amount AS refund
     FROM wallet.reservations r
     JOIN wallet.ledger_entries d ON d.id = r.debit_entry_id
     LEFT JOIN wallet.ledger_entries f ON f.id = r.refund_entry_id
     WHERE d.type <> 'order_debit' OR d.order_id <> r.order_id OR d.amount <> -r.amount OR d.partner_id <> r.partner_id
        OR (r.state = 'released') <> (f.id IS NOT NULL)
        OR (f.id IS NOT NULL AND (f.type <> 'refund' OR f.order_id <> r.order_id OR f.amount <> r.amount))`,
  );
  await found(
    'debit without a reservation',
    `SELECT e.order_id FROM wallet.ledger_entries e LEFT JOIN wallet.reservations r ON r.debit_entry_id = e.id WHERE e.type = 'order_debit' AND r.order_id IS NULL`,
  );
  return violations;
}
