import { newId } from '@esim/ids';
import type { Queryable } from '@esim/postgres';
import { insertEntry } from '../store/ledgerStore.js';
import { crossLowBalance } from '../store/lowBalanceStore.js';
import { createWallet, lockWallet, moveHead } from '../store/walletStore.js';
import { announceLowBalance } from './walletEvents.js';
import type { LedgerEntry, NewEntry, WalletHead } from './ledger.js';

/**
 * Locks the partner's wallet for a money movement (in the caller's
 * transaction). With `create`, a partner's first movement makes the empty
 * wallet; without it, a missing wallet is undefined, so a refused movement
 * writes nothing at all.
 */
export async function lockWalletFor(db: Queryable, partnerId: string, options: { create: boolean }): Promise<WalletHead | undefined> {
  const head = await lockWallet(db, partnerId);
  if (head || !options.create) return head;
  await createWallet(db, partnerId);
  return lockWallet(db, partnerId);
}

/**
 * Appends an entry to a locked wallet and moves the wallet's balance to the
 * entry's balance_after. The database refuses a result below zero or a
 * broken chain, so a bug here fails the transaction rather than the books.
 * A debit that takes the balance below the partner's lowBalanceThreshold
 * queues one `wallet.balance_low` in the same transaction (§9); a movement
 * back to the threshold re-arms it, so each crossing is announced once.
 */
export async function appendEntry(db: Queryable, head: WalletHead, entry: NewEntry): Promise<LedgerEntry> {
  const written = await insertEntry(db, newId('led'), head, entry);
  await moveHead(db, head.partnerId, written.id, written.balanceAfter);
  if (written.amount < 0) await announceIfLow(db, head.partnerId, written.balanceAfter);
  else await crossLowBalance(db, head.partnerId, written.balanceAfter, false);
  return written;
}

/**
 * After a debit of the (locked) wallet: one `wallet.balance_low` in the
 * debit's transaction when it took the balance below the partner's
 * threshold and this dip was not announced yet (§9).
 */
export async function announceIfLow(db: Queryable, partnerId: string, balanceAfter: number): Promise<void> {
  const threshold = await crossLowBalance(db, partnerId, balanceAfter, true);
  if (threshold !== undefined) await announceLowBalance(db, partnerId, balanceAfter, threshold);
}
