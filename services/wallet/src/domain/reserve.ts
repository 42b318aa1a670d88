import { AppError } from '@esim/errors';
import { boundTransaction, DeadlinePassed, pgErrorCode, withTransaction, type Queryable } from '@esim/postgres';
import { findEntry } from '../store/ledgerStore.js';
import { debitForOrder } from '../store/debitStore.js';
import { findReservation } from '../store/reservationStore.js';
import { readBalance } from '../store/walletStore.js';
import type { WalletDeps } from './deps.js';
import type { LedgerEntry, Reservation } from './ledger.js';
import { modeOf, walletMetrics } from './metrics.js';
import { announceIfLow } from './movement.js';
import { check, insufficientBalance, limits } from './rules.js';

export interface ReserveInput {
  orderId: string;
  partnerId: string;
  amount: number;
  description: string;
  /**
   * The debit commits before this instant (the database's clock) or not at
   * all; undefined: no bound. The orders sweeper drops a pending order with no
   * reservation only after it, so the debit can never land after the drop (#23).
   */
  notAfter?: Date;
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
 * below the price refuses the order and writes nothing. With `notAfter`, the
 * transaction is bounded by it in the database's clock (first and last
 * statement, `boundTransaction`): past it, nothing is debited and the call
 * answers UNAVAILABLE, however long this process paused in between.
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
      if (input.notAfter) await boundTransaction(db, input.notAfter);
      const entry = await debitForOrder(db, {
        orderId: input.orderId,
        partnerId: input.partnerId,
        amount: input.amount,
        description: input.description === '' ? null : input.description,
      });
      if (entry) {
        await announceIfLow(db, input.partnerId, entry.balanceAfter);
        // The last statement before COMMIT: past it, the database ends the session rather than let a late commit in.
        if (input.notAfter) await boundTransaction(db, input.notAfter);
        return { entry, balanceAfter: entry.balanceAfter, replayed: false };
      }
      // Nothing was written: an earlier call's debit may be why the balance is short now.
      const again = await replayOf(db, input);
      if (again) return again;
      const balance = await readBalance(db, input.partnerId);
      throw insufficientBalance(`Wallet balance ${balance} is lower than the order price ${input.amount} (${deps.currency} cents).`);
    });
    if (!reserved.replayed) {
      walletMetrics.debits.add(1, modeOf(input.partnerId));
      walletMetrics.debitedMinor.add(input.amount, modeOf(input.partnerId));
    }
    return reserved;
  } catch (error) {
    if (error instanceof DeadlinePassed || (input.notAfter && isSessionEnded(error))) {
      walletMetrics.reservesPastDeadline.add(1);
      throw new AppError('UNAVAILABLE', `The payment of order ${input.orderId} could not be committed before its deadline; nothing was debited.`, { cause: error });
    }
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

/** The database ended the session (idle_in_transaction_session_timeout, statement_timeout) or the connection dropped under it. */
function isSessionEnded(error: unknown): boolean {
  const code = pgErrorCode(error);
  return code === '25P03' || code === '57014' || /terminat|Connection|closed/i.test(error instanceof Error ? error.message : '');
}
