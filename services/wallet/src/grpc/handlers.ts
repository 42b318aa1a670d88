import { validationError } from '@esim/errors';
import type { ServiceHandlers } from '@esim/grpc';
import type { walletV1 } from '@esim/proto';
import { adjust } from '../domain/adjust.js';
import { creditTestWallet } from '../domain/creditTestWallet.js';
import type { WalletDeps } from '../domain/deps.js';
import { getReservation } from '../domain/getReservation.js';
import { getWallet } from '../domain/getWallet.js';
import { listLedger } from '../domain/listLedger.js';
import { getLowBalanceThreshold, setLowBalanceThreshold } from '../domain/lowBalanceThreshold.js';
import { refundRequested } from '../domain/refund.js';
import { reconciliationSnapshot } from '../domain/reconciliationSnapshot.js';
import { reserve } from '../domain/reserve.js';
import { topUp } from '../domain/topUp.js';
import { amountOf, auditOf, ledgerEntryMessage, reservationMessage } from './views.js';

type WalletMethods = (typeof walletV1.WalletService)['method'];

/** Transport only: each RPC converts its message, calls one use case, converts the answer. */
export function walletHandlers(deps: WalletDeps): ServiceHandlers<WalletMethods> {
  return {
    async reserve(request) {
      const { entry, balanceAfter, replayed } = await reserve(deps, { ...request, amount: amountOf(request.amount), notAfter: notAfterOf(request.notAfter) });
      return { entry: ledgerEntryMessage(entry), balanceAfter: BigInt(balanceAfter), replayed };
    },
    async getReconciliationSnapshot(request) {
      const snapshot = await reconciliationSnapshot(deps.pool, { heldOlderThanMs: Number(request.heldOlderThanMs), orderIds: request.orderIds });
      return {
        held: snapshot.held.map(reservationMessage),
        reservations: snapshot.reservations.map(reservationMessage),
        unbalanced: snapshot.unbalanced.map((w) => ({ partnerId: w.partnerId, balance: BigInt(w.balance), ledgerSum: BigInt(w.ledgerSum) })),
      };
    },
    async getReservation(request) {
      return reservationMessage(await getReservation(deps.pool, request.orderId));
    },
    async getWallet(request) {
      const { balance, ledger } = await getWallet(deps, request);
      return { partnerId: request.partnerId, balance: BigInt(balance), currency: deps.currency, ledger: ledger.map(ledgerEntryMessage) };
    },
    async listLedger(request) {
      const { entries, total } = await listLedger(deps, request);
      return { entries: entries.map(ledgerEntryMessage), total };
    },
    async topUp(request) {
      const { entry, balance, created } = await topUp(deps, {
        partnerId: request.partnerId,
        amount: amountOf(request.amount),
        reference: request.reference,
        note: request.note,
        audit: auditOf(request.audit),
      });
      return { entry: ledgerEntryMessage(entry), balance: BigInt(balance), created };
    },
    async creditTestWallet(request) {
      const { entry, balance } = await creditTestWallet(deps, { partnerId: request.partnerId, amount: amountOf(request.amount) });
      return { entry: ledgerEntryMessage(entry), balance: BigInt(balance), created: true };
    },
    async adjust(request) {
      const { entry, balance } = await adjust(deps, {
        partnerId: request.partnerId,
        amount: amountOf(request.amount),
        reason: request.reason,
        audit: auditOf(request.audit),
      });
      return { entry: ledgerEntryMessage(entry), balance: BigInt(balance) };
    },
    async refundOrder(request) {
      const { entry, balanceAfter, replayed } = await refundRequested(deps, request);
      return { entry: ledgerEntryMessage(entry), balanceAfter: BigInt(balanceAfter), replayed };
    },
    async setLowBalanceThreshold(request) {
      const threshold = await setLowBalanceThreshold(deps, request.partnerId, request.threshold === undefined ? null : amountOf(request.threshold));
      return { threshold: threshold === null ? undefined : BigInt(threshold) };
    },
    async getLowBalanceThreshold(request) {
      const threshold = await getLowBalanceThreshold(deps, request.partnerId);
      return { threshold: threshold === null ? undefined : BigInt(threshold) };
    },
  };
}

/** ReserveRequest.not_after: RFC 3339, or empty for no bound. */
function notAfterOf(text: string): Date | undefined {
  if (text === '') return undefined;
  const at = new Date(text);
  if (Number.isNaN(at.getTime())) throw validationError([{ path: 'notAfter', message: 'must be an RFC 3339 instant' }]);
  return at;
}
