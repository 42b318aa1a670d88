import { AppError } from '@esim/errors';
import { pgErrorCode, withTransaction, type Queryable } from '@esim/postgres';
import { findEntry } from '../store/ledgerStore.js';
import { debitForOrder } from '../store/debitStore.js';
import { findReservation } from '../store/reservationStore.js';
import { readBalance } from '../store/walletStore.js';
import type { WalletDeps } from './deps.js';
import type { LedgerEntry, Reservation } from './ledger.js';
import { walletMetrics } from './metrics.js';
import { announceIfLow } from './movement.js';
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
 * replicas. The debit is one guarded UPDATE of the wallet and the ledger row
 * right after (store/debitStore.ts), so calls for one partner queue on the
 * wallet's row lock for one statement and the commit only. A repeated call
 * hits the unique debit-per-order index (or finds its reservation when the
 * balance is short now) and answers the first debit (`replayed`). A balance
 * below the price refuses the order and writes nothing.
 */
export async function reserve(deps: WalletDeps, input: ReserveInput): Promise<Reserved> {
  check()
    .id('orderId', 'ord', input.orderId)
    .id('partnerId', 'ptn', input.partnerId)
    .integer('amount', input.amount, 1, limits.orderPriceMax)
    .text('description', input.description, limits.textLength, false)
    .done();
  try {
    const reserved = await withTransaction(deps.pool, async (db): Promise<Reserved> => {
      const entry = await debitForOrder(db, {
        orderId: input.orderId,
        partnerId: input.partnerId,
        amount: input.amount,
        description: input.description === '' ? null : input.description,
      });
      if (entry) {
        await announceIfLow(db, input.partnerId, entry.balanceAfter);
        return { entry, balanceAfter: entry.balanceAfter, replayed: false };
      }
      // Nothing was written: an earlier call's debit may be why the balance is short now.
      const again = await replayOf(db, input);
      if (again) return again;
      const balance = await readBalance(db, input.partnerId);
      throw insufficientBalance(`Wallet balance ${balance} is lower than the order price ${input.amount} (${deps.currency} cents).`);
    });
    if (!reserved.replayed) {
      walletMetrics.debits.add(1);
      walletMetrics.debitedMinor.add(input.amount);
    }
    return reserved;
  } catch (error) {
    // This order id was debited first (a retry racing this call, or another partner): answer what is there.
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
