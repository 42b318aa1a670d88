import { randomUUID } from 'node:crypto';
import { AppError } from '@esim/errors';
import { livemodeOf } from '@esim/ids';
import { withTransaction } from '@esim/postgres';
import type { WalletDeps } from './deps.js';
import type { LedgerEntry } from './ledger.js';
import { walletMetrics } from './metrics.js';
import { appendEntry, lockWalletFor } from './movement.js';
import { check, limits } from './rules.js';
import { announceCredit } from './walletEvents.js';

/** What a test credit's entry says, so a partner reading its test ledger knows where the money came from. */
const description = 'Test credit';

/**
 * A partner credits its own test wallet (contract §14): a `topup` entry and
 * its `wallet.credited` test event commit together, as an operator top-up's
 * do. A live account is refused (TEST_MODE_ONLY), whatever the gateway
 * checked: this is the one way money appears without an operator. No audit
 * entry (no operator acted), and no bank reference to de-duplicate by: the
 * entry's reference is a fresh `test-credit-<uuid>`, unique by construction, since
 * the ledger requires one on every topup.
 */
export async function creditTestWallet(deps: WalletDeps, input: { partnerId: string; amount: number }): Promise<{ entry: LedgerEntry; balance: number }> {
  check().id('partnerId', 'ptn', input.partnerId).integer('amount', input.amount, 1, limits.movementMax).done();
  if (livemodeOf(input.partnerId)) throw new AppError('TEST_MODE_ONLY', 'Only a test account can be credited without an operator; use a test key.');
  const entry = await withTransaction(deps.pool, async (db) => {
    const head = await lockWalletFor(db, input.partnerId, { create: true });
    if (!head) throw new Error(`wallet ${input.partnerId} missing after creation`);
    const written = await appendEntry(db, head, { type: 'topup', amount: input.amount, reference: `test-credit-${randomUUID()}`, description });
    await announceCredit(db, written);
    return written;
  });
  walletMetrics.testCredits.add(1);
  return { entry, balance: entry.balanceAfter };
}
