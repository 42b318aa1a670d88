import type { z } from 'zod';
import { enqueueEvent, type ledgerEntryView } from '@esim/events';
import { livemodeOf } from '@esim/ids';
import type { Queryable } from '@esim/postgres';
import { walletSchema } from '../store/schema.js';
import type { AuditContext, LedgerEntry } from './ledger.js';

/** A ledger entry as partners see it (contract §6), for events that carry one. */
export function partnerLedgerEntry(entry: LedgerEntry): z.output<typeof ledgerEntryView> {
  return {
    id: entry.id,
    type: entry.type,
    amount: entry.amount,
    balanceAfter: entry.balanceAfter,
    orderId: entry.orderId,
    reference: entry.reference,
    description: entry.description,
    createdAt: entry.createdAt.toISOString(),
    livemode: livemodeOf(entry.partnerId),
  };
}

/** The operator action, for the audit log the partners service keeps; written in the action's transaction. */
export async function recordAudit(
  db: Queryable,
  record: { action: 'wallet.topup' | 'wallet.adjustment'; partnerId: string; audit: AuditContext; details: Record<string, unknown> },
): Promise<void> {
  await enqueueEvent(db, walletSchema, 'audit.recorded', {
    action: record.action,
    target: record.partnerId,
    operator: record.audit.operator,
    requestId: record.audit.requestId,
    details: record.details,
    occurredAt: new Date().toISOString(),
  });
}

/** Contract §9 `wallet.credited`: the partner's webhook hears of an operator top-up. */
export async function announceCredit(db: Queryable, entry: LedgerEntry): Promise<void> {
  await enqueueEvent(db, walletSchema, 'partner.notification', {
    partnerId: entry.partnerId,
    type: 'wallet.credited',
    orderId: null,
    payload: { ledgerEntry: partnerLedgerEntry(entry), walletBalance: entry.balanceAfter },
  });
}

/** Tells the orders service the failed order's price is back in the wallet. */
export async function announceRefund(db: Queryable, entry: LedgerEntry & { orderId: string }): Promise<void> {
  await enqueueEvent(db, walletSchema, 'wallet.order.refunded', {
    orderId: entry.orderId,
    partnerId: entry.partnerId,
    amount: entry.amount,
    ledgerEntryId: entry.id,
    balanceAfter: entry.balanceAfter,
  });
}

/** Contract §9 `wallet.balance_low`: a debit took the balance below the partner's threshold. */
export async function announceLowBalance(db: Queryable, partnerId: string, walletBalance: number, threshold: number): Promise<void> {
  await enqueueEvent(db, walletSchema, 'partner.notification', {
    partnerId,
    type: 'wallet.balance_low',
    orderId: null,
    payload: { walletBalance, threshold },
  });
}
