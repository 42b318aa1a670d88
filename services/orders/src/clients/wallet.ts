import { AppError } from '@esim/errors';
import { createClient, downstreamDeadline, type TlsFiles } from '@esim/grpc';
import { walletV1 } from '@esim/proto';
import type { ReservationState } from '@esim/vocabulary';

export interface Reservation {
  orderId: string;
  partnerId: string;
  amount: number;
  state: ReservationState;
}

export interface Wallet {
  /**
   * Debits `amount` and holds it for the order; idempotent by orderId.
   * Resolves with the balance right after the debit. INSUFFICIENT_BALANCE
   * when the balance is too low (nothing debited); UNAVAILABLE when the wallet
   * did not answer (the debit may or may not have happened). With `notAfter`,
   * the debit commits before that instant (the database's clock) or never.
   * `deadline`: the request's own (epoch ms, this process's clock); the call ends before it.
   */
  reserve(request: { orderId: string; partnerId: string; amount: number; description: string; notAfter?: Date; deadline?: number }): Promise<{ balanceAfter: number }>;
  /** The order's reservation, or undefined when the wallet holds none. */
  reservation(orderId: string): Promise<Reservation | undefined>;
  /** The partner's balance now. */
  balance(partnerId: string): Promise<number>;
  /**
   * Gives a cancelled order's price back; idempotent by orderId (a second
   * call answers the first refund). UNAVAILABLE when the wallet did not answer.
   */
  refund(request: { orderId: string; partnerId: string; reason: string; deadline?: number }): Promise<{ amount: number; balanceAfter: number; replayed: boolean }>;
  /** What the reconciliation compares (GetReconciliationSnapshot). */
  reconciliationSnapshot(request: { heldOlderThanMs: number; orderIds: string[] }): Promise<{
    held: Reservation[];
    reservations: Reservation[];
    unbalanced: Array<{ partnerId: string; balance: number; ledgerSum: number }>;
  }>;
  close(): void;
}

/** How long a request waits for Reserve; the sweeper's floor (`minimumPendingAgeMs`) is derived from it. */
export const reserveDeadlineMs = 5_000;
const readDeadlineMs = 2_000;
/** The reconciliation's one read of the wallet: a few thousand rows and one aggregate over the ledger. */
const snapshotDeadlineMs = 60_000;
/** At most this long for a refund (a cancellation's last step); a refund cut short is completed by the cancel sweeper. */
const refundDeadlineMs = 3_000;

/** The wallet's gRPC API, with int64 money converted to number at this edge. */
export function walletClient(address: string, tls?: TlsFiles): Wallet {
  const client = createClient(walletV1.WalletService, address, { tls });
  return {
    async reserve(request) {
      const { notAfter, deadline, ...rest } = request;
      const answer = await client.reserve(
        { ...rest, amount: BigInt(rest.amount), notAfter: notAfter?.toISOString() ?? '' },
        // notAfter is in the database's clock, not this process's: it bounds the wallet's transaction, not this call.
        { deadlineMs: reserveDeadlineMs, deadline: downstreamDeadline(deadline) },
      );
      return { balanceAfter: Number(answer.balanceAfter) };
    },
    async reservation(orderId) {
      try {
        const answer = await client.getReservation({ orderId }, { deadlineMs: readDeadlineMs });
        return { orderId: answer.orderId, partnerId: answer.partnerId, amount: Number(answer.amount), state: answer.state as ReservationState };
      } catch (error) {
        if (error instanceof AppError && (error.code === 'NOT_FOUND' || error.code === 'ORDER_NOT_FOUND')) return undefined;
        throw error;
      }
    },
    async balance(partnerId) {
      const wallet = await client.getWallet({ partnerId, ledgerLimit: 0 }, { deadlineMs: readDeadlineMs });
      return Number(wallet.balance);
    },
    async refund(request) {
      const { deadline, ...call } = request;
      const answer = await client.refundOrder(call, { deadlineMs: refundDeadlineMs, deadline: downstreamDeadline(deadline) });
      return { amount: Number(answer.entry?.amount ?? 0), balanceAfter: Number(answer.balanceAfter), replayed: answer.replayed };
    },
    async reconciliationSnapshot(request) {
      const answer = await client.getReconciliationSnapshot({ heldOlderThanMs: BigInt(request.heldOlderThanMs), orderIds: request.orderIds }, { deadlineMs: snapshotDeadlineMs });
      const reservation = (r: { orderId: string; partnerId: string; amount: bigint; state: string }): Reservation => ({
        orderId: r.orderId,
        partnerId: r.partnerId,
        amount: Number(r.amount),
        state: r.state as ReservationState,
      });
      return {
        held: answer.held.map(reservation),
        reservations: answer.reservations.map(reservation),
        unbalanced: answer.unbalanced.map((w) => ({ partnerId: w.partnerId, balance: Number(w.balance), ledgerSum: Number(w.ledgerSum) })),
      };
    },
    close: () => client.close(),
  };
}
