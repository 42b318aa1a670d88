import { AppError } from '@esim/errors';
import { pgErrorCode, withTransaction, type Queryable } from '@esim/postgres';
import { findEntry } from '../store/ledgerStore.js';
import { findReservation, insertReservation } from '../store/reservationStore.js';
import type { WalletDeps } from './deps.js';
import type { LedgerEntry, Reservation } from './ledger.js';
import { walletMetrics } from './metrics.js';
import { appendEntry, lockWalletFor } from './movement.js';
import { check, insufficientBalance, limits } from './rules.js';

export interface ReserveInput {
  orderId: string;
  partnerId: string;
  amount: number;
  description: string;
}

export interface Reserved {
  entry: LedgerEntry;
  balanceAfter: number;
  replayed: boolean;
}

/**
 * The orders service pays for an order: the price is debited and held for
 * the order. Guarantee: one debit per order, however many calls, retries or
 * replicas. Calls for one partner queue on the wallet's row lock, and the
 * one that finds the order's reservation already there answers it
 * (`replayed`); the unique debit-per-order index catches anything else, and
 * the loser answers the winner's debit. A balance below the price refuses
 * the order and writes nothing.
 */
export async function reserve(deps: WalletDeps, input: ReserveInput): Promise<Reserved> {
  check()
    .id('orderId', 'ord', input.orderId)
    .id('partnerId', 'ptn', input.partnerId)
    .integer('amount', input.amount, 1, limits.orderPriceMax)
    .text('description', input.description, limits.textLength, false)
    .done();
  const earlier = await replayOf(deps.pool, input);
  if (earlier) return earlier;
  try {
    const reserved = await withTransaction(deps.pool, async (db) => {
      const head = await lockWalletFor(db, input.partnerId, { create: false });
      const again = await replayOf(db, input);
      if (again) return again;
      const balance = head?.balance ?? 0;
      if (!head || balance < input.amount) {
        throw insufficientBalance(`Wallet balance ${balance} is lower than the order price ${input.amount} (${deps.currency} cents).`);
      }
      const entry = await appendEntry(db, head, {
        type: 'order_debit',
        amount: -input.amount,
        orderId: input.orderId,
        description: input.description === '' ? null : input.description,
      });
      await insertReservation(db, { orderId: input.orderId, partnerId: input.partnerId, amount: input.amount, debitEntryId: entry.id });
      return { entry, balanceAfter: entry.balanceAfter, replayed: false };
    });
    if (!reserved.replayed) {
      walletMetrics.debits.add(1);
      walletMetrics.debitedMinor.add(input.amount);
    }
    return reserved;
  } catch (error) {
    // Another partner's wallet debited this order id first: answer what is there.
    if (pgErrorCode(error) === '23505') {
      const winner = await replayOf(deps.pool, input);
      if (winner) return winner;
    }
    throw error;
  }
}

/** The earlier debit of this order, if any; a different partner or price for one order id is the caller's bug. */
async function replayOf(db: Queryable, input: ReserveInput): Promise<Reserved | undefined> {
  const reservation = await findReservation(db, input.orderId);
  if (!reservation) return undefined;
  if (reservation.partnerId !== input.partnerId || reservation.amount !== input.amount) throw conflict(reservation, input);
  const entry = await findEntry(db, reservation.debitEntryId);
  if (!entry) throw new Error(`reservation ${input.orderId} without its debit entry`);
  return { entry, balanceAfter: entry.balanceAfter, replayed: true };
}

function conflict(reservation: Reservation, input: ReserveInput): AppError {
  return new AppError(
    'IDEMPOTENCY_CONFLICT',
    `Order ${input.orderId} was already reserved for ${reservation.partnerId} at ${reservation.amount}; this call asks ${input.partnerId} for ${input.amount}.`,
  );
}
