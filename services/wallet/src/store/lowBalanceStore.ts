import type { Queryable } from '@esim/postgres';

/** Sets (or with null clears) the threshold; the next debit below it is announced again. Makes the wallet when the partner has none. */
export async function setLowBalanceThreshold(db: Queryable, partnerId: string, threshold: number | null): Promise<void> {
  await db.query(
    `INSERT INTO wallet.wallets (partner_id, low_balance_threshold) VALUES ($1, $2)
     ON CONFLICT (partner_id) DO UPDATE SET low_balance_threshold = $2, low_balance_announced = false, updated_at = now()`,
    [partnerId, threshold],
  );
}

export async function readLowBalanceThreshold(db: Queryable, partnerId: string): Promise<number | null> {
  const { rows } = await db.query<{ threshold: string | null }>('SELECT low_balance_threshold AS threshold FROM wallet.wallets WHERE partner_id = $1', [partnerId]);
  const threshold = rows[0]?.threshold;
  return threshold === undefined || threshold === null ? null : Number(threshold);
}

/**
 * After a movement of the (locked) wallet to `balance`: a debit that leaves
 * the balance below the threshold, not yet announced, is to be announced now
 * (answers the threshold); any movement that leaves it at or above the
 * threshold re-arms the announcement. Undefined: nothing to announce.
 */
export async function crossLowBalance(db: Queryable, partnerId: string, balance: number, debit: boolean): Promise<number | undefined> {
  const { rows } = await db.query<{ threshold: string; announced: boolean }>(
    `UPDATE wallet.wallets SET low_balance_announced = ($2 < low_balance_threshold)
     WHERE partner_id = $1 AND low_balance_threshold IS NOT NULL
       AND low_balance_announced <> ($2 < low_balance_threshold)
       AND ($3 OR $2 >= low_balance_threshold)
     RETURNING low_balance_threshold AS threshold, low_balance_announced AS announced`,
    [partnerId, balance, debit],
  );
  const row = rows[0];
  return row?.announced ? Number(row.threshold) : undefined;
}
