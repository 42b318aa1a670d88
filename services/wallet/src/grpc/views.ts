import type { walletV1 } from '@esim/proto';
import type { AuditContext, LedgerEntry, Reservation } from '../domain/ledger.js';

/**
 * Conversions between proto messages and domain values, in one place.
 * int64 money crosses as bigint and lives as number inside (amounts are
 * bounded far below 2^53); proto3's "unset" becomes `undefined`.
 */
type Init<T> = Omit<T, '$typeName' | '$unknown'>;

export function ledgerEntryMessage(entry: LedgerEntry): Init<walletV1.LedgerEntry> {
  return {
    id: entry.id,
    type: entry.type,
    amount: BigInt(entry.amount),
    balanceAfter: BigInt(entry.balanceAfter),
    orderId: entry.orderId ?? undefined,
    reference: entry.reference ?? undefined,
    description: entry.description ?? undefined,
    createdAt: entry.createdAt.toISOString(),
  };
}

export function reservationMessage(reservation: Reservation): Init<walletV1.Reservation> {
  return {
    orderId: reservation.orderId,
    partnerId: reservation.partnerId,
    amount: BigInt(reservation.amount),
    state: reservation.state,
    createdAt: reservation.createdAt.toISOString(),
  };
}

/** An int64 from the wire as a number; values beyond 2^53 lose precision but stay far outside every bound the domain checks. */
export const amountOf = (value: bigint): number => Number(value);

export function auditOf(context: { operator: string; requestId: string; note: string } | undefined): AuditContext {
  return { operator: context?.operator ?? '', requestId: context?.requestId ?? '', note: context?.note ?? '' };
}
