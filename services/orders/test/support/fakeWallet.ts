import { AppError } from '@esim/errors';
import { addService, devTlsFiles, startGrpcServer, type GrpcServer, type ServiceHandlers } from '@esim/grpc';
import { walletV1 } from '@esim/proto';
import type { ReservationState } from '@esim/vocabulary';

type WalletMethods = (typeof walletV1.WalletService)['method'];

/**
 * How the fake answers Reserve:
 * - 'normal': debit and answer, as the real wallet;
 * - 'down': answer UNAVAILABLE without debiting (the wallet never got the call);
 * - 'answer-lost': debit, then answer UNAVAILABLE (the debit committed, the answer was lost).
 */
export type ReserveMode = 'normal' | 'down' | 'answer-lost';

interface HeldReservation {
  orderId: string;
  partnerId: string;
  amount: number;
  state: ReservationState;
  balanceAfter: number;
}

export interface FakeWallet {
  address: string;
  setBalance(partnerId: string, balance: number): void;
  balanceOf(partnerId: string): number;
  /** Every Reserve call received, in order (replays included). */
  reserveCalls: { orderId: string; partnerId: string; amount: number; description: string }[];
  reservations: Map<string, HeldReservation>;
  /** Debits actually applied (a replayed Reserve is not one). */
  debits(): number;
  mode: ReserveMode;
  /** Milliseconds Reserve waits before answering (after its decision), to widen races. */
  reserveDelayMs: number;
  /**
   * Awaited inside Reserve before its decision ('before': nothing debited yet)
   * and right after it ('after': debited, not answered): a test runs the
   * sweeper there to race a request still paying.
   */
  onReserve: ((call: { orderId: string; partnerId: string }, phase: 'before' | 'after') => Promise<void>) | undefined;
  /** When true, every RPC answers UNAVAILABLE. */
  unreachable: boolean;
  /** When true, RefundOrder answers UNAVAILABLE without refunding. */
  refundDown: boolean;
  /** Every RefundOrder call received (replays included). */
  refundCalls: { orderId: string; partnerId: string; reason: string }[];
  /** Refunds actually applied (a replayed RefundOrder is not one). */
  refunds(): number;
  stop(): Promise<void>;
}

/**
 * An in-memory WalletService honouring the contract orders relies on:
 * Reserve is idempotent by orderId and refuses with INSUFFICIENT_BALANCE;
 * GetReservation answers NOT_FOUND when there is none. Decisions are taken
 * synchronously, so concurrent calls cannot both debit.
 */
export async function startFakeWallet(): Promise<FakeWallet> {
  const balances = new Map<string, number>();
  let applied = 0;
  let refunded = 0;
  const fake: Omit<FakeWallet, 'address' | 'stop'> = {
    setBalance: (partnerId, balance) => void balances.set(partnerId, balance),
    balanceOf: (partnerId) => balances.get(partnerId) ?? 0,
    reserveCalls: [],
    reservations: new Map(),
    debits: () => applied,
    refundDown: false,
    refundCalls: [],
    refunds: () => refunded,
    mode: 'normal',
    reserveDelayMs: 0,
    onReserve: undefined,
    unreachable: false,
  };
  const down = () => new AppError('UNAVAILABLE', 'fake wallet is down');
  const later = () => new Promise((resolve) => setTimeout(resolve, fake.reserveDelayMs));
  const entry = (reservation: HeldReservation) => ({
    id: `led_${reservation.orderId.slice(4)}`,
    type: 'order_debit',
    amount: BigInt(-reservation.amount),
    balanceAfter: BigInt(reservation.balanceAfter),
    orderId: reservation.orderId,
    createdAt: new Date().toISOString(),
  });

  const handlers: ServiceHandlers<WalletMethods> = {
    async reserve(request) {
      if (fake.unreachable || fake.mode === 'down') throw down();
      const call = { orderId: request.orderId, partnerId: request.partnerId, amount: Number(request.amount), description: request.description };
      fake.reserveCalls.push(call);
      await fake.onReserve?.(call, 'before');
      let reservation = fake.reservations.get(call.orderId);
      const replayed = reservation !== undefined;
      if (!reservation) {
        const balance = fake.balanceOf(call.partnerId);
        if (balance < call.amount) throw new AppError('INSUFFICIENT_BALANCE', `Wallet balance ${balance} is lower than the order price ${call.amount}.`);
        balances.set(call.partnerId, balance - call.amount);
        applied++;
        reservation = { ...call, state: 'held', balanceAfter: balance - call.amount };
        fake.reservations.set(call.orderId, reservation);
      }
      await fake.onReserve?.(call, 'after');
      await later();
      if (fake.mode === 'answer-lost') throw down();
      return { entry: entry(reservation), balanceAfter: BigInt(reservation.balanceAfter), replayed };
    },
    async getReconciliationSnapshot(request) {
      const all = [...fake.reservations.values()];
      const message = (r: HeldReservation) => ({ orderId: r.orderId, partnerId: r.partnerId, amount: BigInt(r.amount), state: r.state, createdAt: new Date(0).toISOString() });
      return {
        held: all.filter((r) => r.state === 'held').map(message),
        reservations: all.filter((r) => request.orderIds.includes(r.orderId)).map(message),
        unbalanced: [],
      };
    },
    async getReservation(request) {
      if (fake.unreachable) throw down();
      const reservation = fake.reservations.get(request.orderId);
      if (!reservation) throw new AppError('NOT_FOUND', `No reservation for ${request.orderId}.`);
      return { ...reservation, amount: BigInt(reservation.amount), createdAt: new Date().toISOString() };
    },
    async getWallet(request) {
      if (fake.unreachable) throw down();
      return { partnerId: request.partnerId, balance: BigInt(fake.balanceOf(request.partnerId)), currency: 'USD', ledger: [] };
    },
    async refundOrder(request) {
      if (fake.unreachable || fake.refundDown) throw down();
      fake.refundCalls.push({ orderId: request.orderId, partnerId: request.partnerId, reason: request.reason });
      const reservation = fake.reservations.get(request.orderId);
      if (!reservation || reservation.partnerId !== request.partnerId) throw new AppError('ORDER_NOT_FOUND', `No reservation for ${request.orderId}.`);
      const replayed = reservation.state === 'released';
      if (!replayed) {
        balances.set(reservation.partnerId, fake.balanceOf(reservation.partnerId) + reservation.amount);
        reservation.state = 'released';
        refunded++;
      }
      const refundEntry = {
        id: `led_r${reservation.orderId.slice(5)}`,
        type: 'refund',
        amount: BigInt(reservation.amount),
        balanceAfter: BigInt(fake.balanceOf(reservation.partnerId)),
        orderId: reservation.orderId,
        createdAt: new Date().toISOString(),
      };
      return { entry: refundEntry, balanceAfter: BigInt(fake.balanceOf(reservation.partnerId)), replayed };
    },
    async listLedger() {
      throw new AppError('UNAVAILABLE', 'not in the fake');
    },
    async topUp() {
      throw new AppError('UNAVAILABLE', 'not in the fake');
    },
    async adjust() {
      throw new AppError('UNAVAILABLE', 'not in the fake');
    },
    async creditTestWallet() {
      throw new AppError('UNAVAILABLE', 'not in the fake');
    },
    async setLowBalanceThreshold() {
      throw new AppError('UNAVAILABLE', 'not in the fake');
    },
    async getLowBalanceThreshold() {
      throw new AppError('UNAVAILABLE', 'not in the fake');
    },
  };

  const server: GrpcServer = await startGrpcServer({
    port: 0,
    host: '127.0.0.1',
    // The real wallet service's identity: callers under test verify it (mutual TLS).
    tls: devTlsFiles('wallet'),
    register: (s) => addService(s, walletV1.WalletService, handlers, () => {}),
  });
  return Object.assign(fake, { address: `127.0.0.1:${server.port}`, stop: () => server.stop(1_000) });
}
