import { pgErrorCode, withTransaction } from '@esim/postgres';
import { findTopUp } from '../store/ledgerStore.js';
import { readBalance } from '../store/walletStore.js';
import type { WalletDeps } from './deps.js';
import type { AuditContext, LedgerEntry } from './ledger.js';
import { walletMetrics } from './metrics.js';
import { appendEntry, lockWalletFor } from './movement.js';
import { check, limits } from './rules.js';
import { announceCredit, recordAudit } from './walletEvents.js';

export interface TopUpInput {
  partnerId: string;
  amount: number;
  /** The bank transfer's reference, unique per partner. */
  reference: string;
  /** Shown on the ledger entry as its description. */
  note: string | undefined;
  audit: AuditContext;
}

/**
 * An operator credits a bank transfer. Guarantee: a reference is credited
 * once per partner, whatever the retries: under the wallet's row lock the
 * reference is looked up first, and the same reference again answers the
 * original entry (`created: false`). The credit, its `wallet.credited`
 * partner event and its audit entry commit together or not at all.
 */
export async function topUp(deps: WalletDeps, input: TopUpInput): Promise<{ entry: LedgerEntry; balance: number; created: boolean }> {
  const note = input.note || undefined;
  check()
    .id('partnerId', 'ptn', input.partnerId)
    .integer('amount', input.amount, 1, limits.movementMax)
    .text('reference', input.reference, limits.referenceLength, true)
    .text('note', note ?? '', limits.textLength, false)
    .done();
  try {
    const result = await withTransaction(deps.pool, async (db) => {
      const head = await lockWalletFor(db, input.partnerId, { create: true });
      if (!head) throw new Error(`wallet ${input.partnerId} missing after creation`);
      const earlier = await findTopUp(db, input.partnerId, input.reference);
      if (earlier) return { entry: earlier, balance: head.balance, created: false };
      const entry = await appendEntry(db, head, { type: 'topup', amount: input.amount, reference: input.reference, description: note ?? null });
      await announceCredit(db, entry);
      await recordAudit(db, {
        action: 'wallet.topup',
        partnerId: input.partnerId,
        audit: input.audit,
        // The top-up's text is the entry's description; `note` in the audit log is the X-Operator header's.
        details: { amount: input.amount, reference: input.reference, description: note ?? null, ledgerEntryId: entry.id },
      });
      return { entry, balance: entry.balanceAfter, created: true };
    });
    if (result.created) walletMetrics.topUps.add(1);
    return result;
  } catch (error) {
    // The unique (partner, reference) index is the last word if two credits ever met outside the lock.
    if (pgErrorCode(error) === '23505') {
      const earlier = await findTopUp(deps.pool, input.partnerId, input.reference);
      if (earlier) return { entry: earlier, balance: await readBalance(deps.pool, input.partnerId), created: false };
    }
    throw error;
  }
}
