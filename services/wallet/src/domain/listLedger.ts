import { countEntries, listEntries } from '../store/ledgerStore.js';
import { withSnapshot } from '../store/snapshot.js';
import type { WalletDeps } from './deps.js';
import type { LedgerEntry } from './ledger.js';
import { check, parsePage } from './rules.js';

/** The whole ledger, newest first, a page at a time (contract §3 paging); the total counts every entry. */
export async function listLedger(
  deps: WalletDeps,
  request: { partnerId: string; page?: { page: number; limit: number } },
): Promise<{ entries: LedgerEntry[]; total: number }> {
  check().id('partnerId', 'ptn', request.partnerId).done();
  const page = parsePage(request.page);
  return withSnapshot(deps.pool, async (db) => ({
    entries: await listEntries(db, request.partnerId, page),
    total: await countEntries(db, request.partnerId),
  }));
}
