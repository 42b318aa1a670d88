import type { OrderKind } from '@esim/vocabulary';

/**
 * The states of the operator's record of a supplier call, declared once: the
 * migration's CHECK lists the same values and a test holds them together.
 * It is provisioning's own vocabulary (no other service reads it), so it
 * lives here rather than in @esim/vocabulary.
 */
export const supplierCallStates = ['pending', 'succeeded', 'failed'] as const;
export type SupplierCallState = (typeof supplierCallStates)[number];

/**
 * What was asked of the supplier for one order, enough to ask again under the
 * same reference. Null fields: a row written before they were recorded.
 */
export interface SupplierRequest {
  kind: OrderKind | null;
  /** A top-up's eSIM. */
  targetIccid: string | null;
  dataMb: number | null;
  validityDays: number | null;
}

/** What provisioning asked of the supplier for one order, and what it last heard. Never the eSIM's secrets. */
export interface SupplierCall extends SupplierRequest {
  orderId: string;
  sku: string;
  /** Supplier calls made for the order, across redeliveries and repeated events. */
  attempts: number;
  state: SupplierCallState;
  lastStatusCode: number | null;
  /** Operator-facing detail (the supplier's error, a timeout); it may name the SKU, unlike the partner-facing reason. */
  lastError: string | null;
  supplierReference: string | null;
  /** The partner-readable reason published with provisioning.failed (state 'failed'). */
  failureReason: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The partner-visible reasons of `provisioning.failed`: no SKU, status code or supplier wording. */
export const failureReasons = {
  rejected: 'The supplier rejected the order.',
  retryWindowOver: 'The supplier did not respond in time.',
} as const;
