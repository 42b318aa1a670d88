import type { OrderStatus } from '@esim/vocabulary';

/**
 * 'pending' is the orders service's own state before the wallet has
 * confirmed the payment: the row exists so duplicates and the sweeper can see
 * it, but no partner or operator ever does (reads treat it as absent).
 */
export type StoredStatus = 'pending' | OrderStatus;

export interface Esim {
  iccid: string;
  smdpAddress: string;
  matchingId: string;
  /** LPA:1$<smdp>$<matchingId> (GSMA SGP.22). */
  activationCode: string;
  /** data:image/png;base64,… encoding activationCode. */
  qrCode: string;
}

/** An order as the service holds it. Money is integer minor units. */
export interface Order {
  id: string;
  partnerId: string;
  clientRequestId: string;
  fingerprint: string;
  planId: string;
  planName: string;
  supplierSku: string;
  price: number;
  currency: string;
  email: string;
  phoneNumber: string;
  status: StoredStatus;
  esim: Esim | null;
  supplierReference: string | null;
  failureReason: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** An order a partner or operator may see: anything but 'pending'. */
export type VisibleOrder = Order & { status: OrderStatus };

export function isVisible(order: Order): order is VisibleOrder {
  return order.status !== 'pending';
}

/** What the partner asked for; its fingerprint decides whether a reused clientRequestId is a replay. */
export interface OrderRequest {
  partnerId: string;
  tier: string;
  clientRequestId: string;
  planId: string;
  email: string;
  phoneNumber: string;
}

/**
 * The reason callers see: only once the order is 'failed'. While the refund
 * is still being recorded the order reads as 'processing', reason and all,
 * so no one acts on a failure whose money is not yet back.
 */
export function shownFailureReason(order: VisibleOrder): string | null {
  return order.status === 'failed' ? order.failureReason : null;
}
