import type { Queryable } from '@esim/postgres';
import { testAccountSqlPattern } from '@esim/ids';

export interface DeletedRows {
  reservations: number;
  ledgerEntries: number;
  wallets: number;
}

/**
 * Deletes every row of one test account (contract §14) in the caller's
 * transaction: reservations, then the ledger (its immutability trigger lets a
 * DELETE through only for the test account this transaction names in
 * `wallet.wipe_account`, migration 1764220000000), then the wallet row with
 * its low-balance threshold. The wallet's head key is deferred, so it is
 * checked at commit, when both sides are gone. Every statement also requires
 * the test pattern, so a live id deletes nothing even if a caller erred.
 */
export async function deleteTestAccountRows(db: Queryable, accountId: string): Promise<DeletedRows> {
  await db.query(`SELECT set_config('wallet.wipe_account', $1, true)`, [accountId]);
  const scoped = [accountId, testAccountSqlPattern];
  const reservations = await db.query('DELETE FROM wallet.reservations WHERE partner_id = $1 AND partner_id LIKE $2', scoped);
  const ledgerEntries = await db.query('DELETE FROM wallet.ledger_entries WHERE partner_id = $1 AND partner_id LIKE $2', scoped);
  const wallets = await db.query('DELETE FROM wallet.wallets WHERE partner_id = $1 AND partner_id LIKE $2', scoped);
  await db.query(`SELECT set_config('wallet.wipe_account', '', true)`);
  return { reservations: reservations.rowCount ?? 0, ledgerEntries: ledgerEntries.rowCount ?? 0, wallets: wallets.rowCount ?? 0 };
}
