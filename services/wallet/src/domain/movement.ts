import { newId } from '@esim/ids';
import type { Queryable } from '@esim/postgres';
import { insertEntry } from '../store/ledgerStore.js';
import { createWallet, lockWallet, moveHead } from '../store/walletStore.js';
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
 */
export async function appendEntry(db: Queryable, head: WalletHead, entry: NewEntry): Promise<LedgerEntry> {
  const written = await insertEntry(db, newId('led'), head, entry);
  await moveHead(db, head.partnerId, written.id, written.balanceAfter);
  return written;
}
