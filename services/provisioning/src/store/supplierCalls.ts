import type { Queryable } from '@esim/postgres';
import type { OrderKind } from '@esim/vocabulary';
import type { SupplierCall, SupplierCallState, SupplierRequest } from '../domain/supplierCall.js';

/** SQL for provisioning.supplier_calls; nothing outside src/store writes SQL against it. */
interface SupplierCallRow {
  order_id: string;
  sku: string;
  attempts: number;
  state: SupplierCallState;
  last_status_code: number | null;
  last_error: string | null;
  supplier_reference: string | null;
  kind: OrderKind | null;
  target_iccid: string | null;
  data_mb: number | null;
  validity_days: number | null;
  failure_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

function toSupplierCall(row: SupplierCallRow): SupplierCall {
  return {
    orderId: row.order_id,
    sku: row.sku,
    attempts: row.attempts,
    state: row.state,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    supplierReference: row.supplier_reference,
    kind: row.kind,
    targetIccid: row.target_iccid,
    dataMb: row.data_mb,
    validityDays: row.validity_days,
    failureReason: row.failure_reason,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export interface CallOutcome {
  orderId: string;
  /** The order's account (ptn_X or ptn_X_test), as orders.order.paid names it. */
  accountId: string;
  sku: string;
  state: SupplierCallState;
  statusCode: number | null;
  error: string | null;
  supplierReference: string | null;
  request: SupplierRequest;
  /** State 'failed' only. */
  failureReason: string | null;
}

/** Counts one more supplier call for the order and records where it left things; returns the call count. */
export async function recordSupplierCall(db: Queryable, call: CallOutcome): Promise<number> {
  const { rows } = await db.query<{ attempts: number }>(
    `INSERT INTO provisioning.supplier_calls (order_id, sku, attempts, state, last_status_code, last_error, supplier_reference,
       kind, target_iccid, data_mb, validity_days, failure_reason, account_id)
     VALUES ($1, $2, 1, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
     ON CONFLICT (order_id) DO UPDATE SET
       sku = EXCLUDED.sku,
       attempts = supplier_calls.attempts + 1,
       state = EXCLUDED.state,
       last_status_code = EXCLUDED.last_status_code,
       last_error = EXCLUDED.last_error,
       supplier_reference = COALESCE(EXCLUDED.supplier_reference, supplier_calls.supplier_reference),
       kind = EXCLUDED.kind,
       target_iccid = EXCLUDED.target_iccid,
       data_mb = EXCLUDED.data_mb,
       validity_days = EXCLUDED.validity_days,
       failure_reason = EXCLUDED.failure_reason,
       account_id = EXCLUDED.account_id,
       updated_at = now()
     RETURNING attempts`,
    [
      call.orderId,
      call.sku,
      call.state,
      call.statusCode,
      call.error,
      call.supplierReference,
      call.request.kind,
      call.request.targetIccid,
      call.request.dataMb,
      call.request.validityDays,
      call.failureReason,
      call.accountId,
    ],
  );
  return rows[0]?.attempts ?? 1;
}

export async function findSupplierCall(db: Queryable, orderId: string): Promise<SupplierCall | undefined> {
  const { rows } = await db.query<SupplierCallRow>('SELECT * FROM provisioning.supplier_calls WHERE order_id = $1', [orderId]);
  return rows[0] ? toSupplierCall(rows[0]) : undefined;
}
