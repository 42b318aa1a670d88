import { listEntries } from '../store/ledgerStore.js';
import { withSnapshot } from '../store/snapshot.js';
import { readBalance } from '../store/walletStore.js';
import type { WalletDeps } from './deps.js';
import type { LedgerEntry } from './ledger.js';
import { check, limits } from './rules.js';

/**
 * A partner's balance and most recent entries, newest first, read from one
 * snapshot so the balance is the first entry's balanceAfter. A partner who
 * never had money has a wallet of 0 with no entries (the gateway has checked
 * that the partner exists).
 */
export async function getWallet(deps: WalletDeps, request: { partnerId: string; ledgerLimit: number }): Promise<{ balance: number; ledger: LedgerEntry[] }> {
  const limit = request.ledgerLimit || limits.recentEntries;
  check().id('partnerId', 'ptn', request.partnerId).integer('ledgerLimit', limit, 1, limits.pageLimitMax).done();
  return withSnapshot(deps.pool, async (db) => ({
    balance: await readBalance(db, request.partnerId),
    ledger: await listEntries(db, request.partnerId, { limit, offset: 0 }),
  }));
}
