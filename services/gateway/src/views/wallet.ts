import { z } from 'zod';
import { livemodeOf } from '@esim/ids';
import type { walletV1 } from '@esim/proto';
import { ledgerEntryTypes, type LedgerEntryType } from '@esim/vocabulary';
import { component } from '../http/components.js';

/** One immutable ledger line (§6): credits positive, debits negative, each with the balance right after it. */
export const ledgerEntryView = component(
  z.object({
    id: z.string(),
    type: z.enum(ledgerEntryTypes),
    amount: z.number().int().describe('Signed, in minor units: topup and refund positive, order_debit negative, adjustment either'),
    balanceAfter: z.number().int(),
    orderId: z.string().nullable(),
    reference: z.string().nullable().describe('The bank transfer reference of a topup'),
    description: z.string().nullable(),
    createdAt: z.string(),
    livemode: z.boolean().describe('false for test mode (a test key’s data, contract §14); true for live'),
  }),
  'LedgerEntry',
  'both',
);

/** §6 wallet view: the balance and the 50 most recent ledger entries, newest first. */
export const walletView = component(
  z.object({
    balance: z.number().int().describe('Minor units of `currency`; always the sum of the ledger'),
    currency: z.string(),
    ledger: z.array(ledgerEntryView).describe('The 50 most recent entries, newest first'),
    livemode: z.boolean().describe('false for test mode (a test key’s data, contract §14); true for live'),
  }),
  'Wallet',
  'both',
);

/** How many recent entries the §6 wallet view holds; older ones are paged through …/wallet/ledger. */
export const walletLedgerLimit = 50;

/** `livemode` is the owning account's (@esim/ids livemodeOf): an entry does not name its account. */
export function toLedgerEntryView(entry: walletV1.LedgerEntry, livemode: boolean): z.input<typeof ledgerEntryView> {
  return {
    id: entry.id,
    type: entry.type as LedgerEntryType,
    amount: Number(entry.amount),
    balanceAfter: Number(entry.balanceAfter),
    orderId: entry.orderId ?? null,
    reference: entry.reference ?? null,
    description: entry.description ?? null,
    createdAt: entry.createdAt,
    livemode,
  };
}

export function toWalletView(wallet: walletV1.Wallet): z.input<typeof walletView> {
  const livemode = livemodeOf(wallet.partnerId);
  return { balance: Number(wallet.balance), currency: wallet.currency, ledger: wallet.ledger.map((entry) => toLedgerEntryView(entry, livemode)), livemode };
}
