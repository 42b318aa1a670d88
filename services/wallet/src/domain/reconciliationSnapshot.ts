import type { Pool } from '@esim/postgres';
import type { Reservation } from './ledger.js';
import { heldReservationsOlderThan, reservationsOf } from '../store/reservationStore.js';
import { unbalancedWallets } from '../store/walletStore.js';

export interface ReconciliationSnapshot {
  /** Reservations still held longer than asked: a debit whose order should long have been paid, failed or dropped. */
  held: Reservation[];
  /** The reservations of the orders named (the orders side's paid orders). */
  reservations: Reservation[];
  /** Wallets whose balance is not the sum of their ledger. */
  unbalanced: Array<{ partnerId: string; balance: number; ledgerSum: number }>;
}

/** Bounds of one snapshot: the reconciliation pages through the orders; a day's worth fits. */
export const snapshotLimits = { held: 1_000, orderIds: 5_000 } as const;

/** What the daily reconciliation (contract §11, run by orders) compares with the orders' side. Read only. */
export async function reconciliationSnapshot(pool: Pool, input: { heldOlderThanMs: number; orderIds: string[] }): Promise<ReconciliationSnapshot> {
  const orderIds = input.orderIds.slice(0, snapshotLimits.orderIds);
  const [held, reservations, unbalanced] = await Promise.all([
    heldReservationsOlderThan(pool, Math.max(0, input.heldOlderThanMs), snapshotLimits.held),
    orderIds.length > 0 ? reservationsOf(pool, orderIds) : Promise.resolve([]),
    unbalancedWallets(pool),
  ]);
  return { held, reservations, unbalanced };
}
