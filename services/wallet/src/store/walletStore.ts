import { testAccountSqlPattern } from '@esim/ids';
import type { Queryable } from '@esim/postgres';
import type { WalletHead } from '../domain/ledger.js';

/** SQL for wallet.wallets; nothing outside src/store writes SQL against it. */
interface WalletRow {
  partner_id: string;
  balance: number;
  last_entry_id: string | null;
}

const toHead = (row: WalletRow): WalletHead => ({ partnerId: row.partner_id, balance: row.balance, lastEntryId: row.last_entry_id });

/**
 * Locks the partner's wallet row until the transaction ends; every money
 * movement of the partner queues here. Undefined when the partner has none yet.
 */
export async function lockWallet(db: Queryable, partnerId: string): Promise<WalletHead | undefined> {
  const { rows } = await db.query<WalletRow>('SELECT partner_id, balance, last_entry_id FROM wallet.wallets WHERE partner_id = $1 FOR UPDATE', [partnerId]);
  return rows[0] ? toHead(rows[0]) : undefined;
}

/** An empty wallet; a concurrent creator's row wins and this is a no-op. */
export async function createWallet(db: Queryable, partnerId: string): Promise<void> {
  await db.query('INSERT INTO wallet.wallets (partner_id) VALUES ($1) ON CONFLICT (partner_id) DO NOTHING', [partnerId]);
}

/** Points the wallet at its new newest entry and that entry's balance_after. */
export async function moveHead(db: Queryable, partnerId: string, entryId: string, balance: number): Promise<void> {
  const result = await db.query('UPDATE wallet.wallets SET last_entry_id = $2, balance = $3, updated_at = now() WHERE partner_id = $1', [partnerId, entryId, balance]);
  if (result.rowCount !== 1) throw new Error(`wallet ${partnerId} vanished while locked`);
}

/** The current balance, 0 for a partner without a wallet. */
export async function readBalance(db: Queryable, partnerId: string): Promise<number> {
  const { rows } = await db.query<{ balance: number }>('SELECT balance FROM wallet.wallets WHERE partner_id = $1', [partnerId]);
  return rows[0]?.balance ?? 0;
}

/** Live wallets whose balance is not the sum of their ledger entries (the reconciliation's last check; the chain guards should make it empty). Test accounts are not reconciled (docs/decisions.md). */
export async function unbalancedWallets(db: Queryable): Promise<Array<{ partnerId: string; balance: number; ledgerSum: number }>> {
  const { rows } = await db.query<{ partner_id: string; balance: string; ledger_sum: string }>(
    `SELECT w.partner_id, w.balance::text AS balance, COALESCE(l.total, 0)::text AS ledger_sum
     FROM wallet.wallets w
     LEFT JOIN (SELECT partner_id, sum(amount) AS total FROM wallet.ledger_entries GROUP BY partner_id) l ON l.partner_id = w.partner_id
     WHERE w.balance <> COALESCE(l.total, 0) AND w.partner_id NOT LIKE $1
     ORDER BY w.partner_id LIMIT 1000`,
    [testAccountSqlPattern],
  );
  return rows.map((row) => ({ partnerId: row.partner_id, balance: Number(row.balance), ledgerSum: Number(row.ledger_sum) }));
}
