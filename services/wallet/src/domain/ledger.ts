import type { LedgerEntryType, ReservationState } from '@esim/vocabulary';

/**
 * The wallet's values. Money is integer minor units (pg parses int8 as
 * number; every amount is bounded far below 2^53).
 */
export interface LedgerEntry {
  id: string;
  partnerId: string;
  type: LedgerEntryType;
  /** Signed: credits positive, debits negative. */
  amount: number;
  balanceBefore: number;
  balanceAfter: number;
  orderId: string | null;
  reference: string | null;
  description: string | null;
  createdAt: Date;
}

/** The fields a movement chooses; the chain (predecessor, balances) is the wallet's to fill in. */
export interface NewEntry {
  type: LedgerEntryType;
  amount: number;
  orderId?: string | null;
  reference?: string | null;
  description?: string | null;
}

/** A wallet row as locked for a movement: its balance and the entry the next one chains to. */
export interface WalletHead {
  partnerId: string;
  balance: number;
  lastEntryId: string | null;
}

export interface Reservation {
  orderId: string;
  partnerId: string;
  amount: number;
  state: ReservationState;
  debitEntryId: string;
  refundEntryId: string | null;
  /** A group order's refund of its missing units (contract §7); the reservation is then captured. */
  partialRefundEntryId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface AuditContext {
  operator: string;
  requestId: string;
  /** The free-text X-Operator header, recorded as the entry's note; never the actor. */
  note?: string;
}
