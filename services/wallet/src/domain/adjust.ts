import { withTransaction } from '@esim/postgres';
import type { WalletDeps } from './deps.js';
import type { AuditContext, LedgerEntry } from './ledger.js';
import { walletMetrics } from './metrics.js';
import { appendEntry, lockWalletFor } from './movement.js';
import { check, insufficientBalance, limits } from './rules.js';
import { recordAudit } from './walletEvents.js';

export interface AdjustInput {
  partnerId: string;
  /** Signed, non-zero. */
  amount: number;
  /** Why the operator corrects the balance; shown on the ledger entry. */
  reason: string;
  audit: AuditContext;
}

/**
 * An operator corrects a mistake with a signed amount. The balance never
 * goes below zero: a larger debit is refused and nothing is written. The
 * entry and its audit record commit together. Not idempotent (the contract
 * gives it no key): each call is a new correction.
 */
export async function adjust(deps: WalletDeps, input: AdjustInput): Promise<{ entry: LedgerEntry; balance: number }> {
  check()
    .id('partnerId', 'ptn', input.partnerId)
    .nonZero('amount', input.amount, limits.movementMax)
    .text('reason', input.reason, limits.textLength, true)
    .done();
  const result = await withTransaction(deps.pool, async (db) => {
    const head = await lockWalletFor(db, input.partnerId, { create: input.amount > 0 });
    const balance = head?.balance ?? 0;
    if (!head || balance + input.amount < 0) {
      throw insufficientBalance(
        `Wallet balance ${balance} cannot take an adjustment of ${input.amount} (${deps.currency} cents): the balance may not go below 0.`,
      );
    }
    const entry = await appendEntry(db, head, { type: 'adjustment', amount: input.amount, description: input.reason });
    await recordAudit(db, {
      action: 'wallet.adjustment',
      partnerId: input.partnerId,
      audit: input.audit,
      details: { amount: input.amount, reason: input.reason, ledgerEntryId: entry.id },
    });
    return { entry, balance: entry.balanceAfter };
  });
  walletMetrics.adjustments.add(1);
  return result;
}
