import type { OrderKind, OrderStatus } from '@esim/vocabulary';

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
  /** Apple's universal install link (iOS 17.4+), derived from activationCode. */
  appleInstallUrl: string;
}

/** Contract §7: Apple's install link carries the activation code, percent-encoded, as `carddata`. */
export function appleInstallUrlOf(activationCode: string): string {
  return `https://esimsetup.apple.com/esim_qrcode_provisioning?carddata=${encodeURIComponent(activationCode)}`;
}

/** The plan's shape, copied from the catalog at order time: the bundle's size and the top-up rules read it. */
export interface PlanShape {
  countries: string[];
  region: string | null;
  /** Null only for orders placed before top-ups existed. */
  dataMb: number | null;
  validityDays: number | null;
}

/**
 * An order as the service holds it: the ONE shape every boundary maps from
 * (store row → this in orderStore; this → proto in grpc/views; this → the
 * partner event view in partnerView). Money is integer minor units.
 */
export interface Order extends PlanShape {
  id: string;
  partnerId: string;
  clientRequestId: string;
  fingerprint: string;
  kind: OrderKind;
  /** A top-up's eSIM from the start; a first order's once provisioned. */
  iccid: string | null;
  planId: string;
  planName: string;
  supplierSku: string;
  /** The plan's SM-DP+ profile type when the order was placed (§8); null: provisioning's default. */
  profileType: string | null;
  price: number;
  currency: string;
  email: string;
  phoneNumber: string;
  status: StoredStatus;
  esim: Esim | null;
  supplierReference: string | null;
  failureReason: string | null;
  provisionedAt: Date | null;
  cancelledAt: Date | null;
  /** Set while a cancellation is under way (revoke and refund not yet recorded). */
  cancelRequestedAt: Date | null;
  refundedAmount: number | null;
  /** eSIMs ordered at once (§7); price = quantity × unitPrice. */
  quantity: number;
  unitPrice: number;
  /** A group's unit order (internal, never shown): the group it belongs to and its index there. */
  groupOrderId: string | null;
  unit: number | null;
  /**
   * Every provisioned eSIM of the order, in unit order; `esim` is the first.
   * A single order's is `[esim]`; a group's are its units' (loadGroupEsims).
   */
  esims: Esim[];
  createdAt: Date;
  updatedAt: Date;
}

/** A group order: its eSIMs are provisioned by unit orders of their own. */
export function isGroup(order: Pick<Order, 'quantity' | 'groupOrderId'>): boolean {
  return order.quantity > 1 && order.groupOrderId === null;
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
  /** Set: a top-up of this eSIM (contract §13). */
  iccid?: string;
  /** The gateway's catalog version when the order arrived: no price cached for an older one is charged (0: none). */
  catalogVersion?: number;
  /** eSIMs of the plan to order at once (1–50; absent or 0: one). */
  quantity?: number;
}

/**
 * The reason callers see: only once the order is 'failed'. While the refund
 * is still being recorded the order reads as 'processing', reason and all,
 * so no one acts on a failure whose money is not yet back.
 */
export function shownFailureReason(order: VisibleOrder): string | null {
  return order.status === 'failed' ? order.failureReason : null;
}
