import { newId } from '@esim/ids';
import type { Queryable } from '@esim/postgres';
import type { LedgerEntry } from '../domain/ledger.js';

/**
 * SQL for an order's debit (wallet.wallets, wallet.ledger_entries and
 * wallet.reservations together), in the caller's transaction: two
 * statements where a lock-read-write sequence took five.
 *
 * 1. The guarded UPDATE takes the wallet's row lock, checks the balance and
 *    moves the head to the new entry's id at once (`WHERE balance >= price`:
 *    no balance is ever read before the lock). It matches no row when the
 *    balance is short or the wallet does not exist, and writes nothing.
 * 2. The ledger row and the reservation, right after, under that lock. The
 *    previous entry is the partner's newest (highest seq): every entry of a
 *    partner is appended under this row lock, and this statement's snapshot
 *    is taken after the lock was granted, so it sees them all.
 *
 * The database's own guards (chain key, one successor, deferred head key,
 * one debit per order) still refuse anything else, so a mistake here fails
 * the transaction rather than the books. The lock is held for statement 2
 * and the commit only.
 */
export async function debitForOrder(
  db: Queryable,
  input: { orderId: string; partnerId: string; amount: number; description: string | null },
): Promise<LedgerEntry | undefined> {
  const id = newId('led');
  const moved = await db.query<{ balance: number }>(
    `UPDATE wallet.wallets SET balance = balance - $3, last_entry_id = $1, updated_at = now()
     WHERE partner_id = $2 AND balance >= $3 RETURNING balance`,
    [id, input.partnerId, input.amount],
  );
  const balanceAfter = moved.rows[0]?.balance;
  if (balanceAfter === undefined) return undefined;
  const { rows } = await db.query<{ created_at: Date }>(
    `WITH entry AS (
       INSERT INTO wallet.ledger_entries (id, partner_id, prev_entry_id, type, amount, balance_before, balance_after, order_id, description)
       SELECT $1, $2, (SELECT id FROM wallet.ledger_entries WHERE partner_id = $2 ORDER BY seq DESC LIMIT 1), 'order_debit', -$3::bigint, $4::bigint + $3::bigint, $4, $5, $6
       RETURNING id, created_at
     ), held AS (
       INSERT INTO wallet.reservations (order_id, partner_id, amount, state, debit_entry_id) SELECT $5, $2, $3, 'held', id FROM entry
     )
     SELECT created_at FROM entry`,
    [id, input.partnerId, input.amount, balanceAfter, input.orderId, input.description],
  );
  return {
    id,
    partnerId: input.partnerId,
    type: 'order_debit',
    amount: -input.amount,
    balanceBefore: balanceAfter + input.amount,
    balanceAfter,
    orderId: input.orderId,
    reference: null,
    description: input.description,
    createdAt: rows[0]!.created_at,
  };
}
