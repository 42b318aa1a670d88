import type { OrderKind } from '@esim/vocabulary';
import { appleInstallUrlOf, type Order, type StoredStatus } from '../domain/order.js';

/** The columns of orders.orders every read selects, and their mapping to the domain order: the one place a row becomes an Order. */
export const columns = `id, partner_id, client_request_id, fingerprint, kind, iccid, plan_id, plan_name, supplier_sku, profile_type, countries, region, data_mb,
  validity_days, price, currency, email, phone_number, status, smdp_address, matching_id, activation_code, qr_code, supplier_reference,
  failure_reason, provisioned_at, cancelled_at, cancel_requested_at, refunded_amount, quantity, unit_price, group_order_id, unit, created_at, updated_at`;

export interface OrderRow {
  id: string;
  partner_id: string;
  client_request_id: string;
  fingerprint: string;
  kind: OrderKind;
  iccid: string | null;
  plan_id: string;
  plan_name: string;
  supplier_sku: string;
  profile_type: string | null;
  countries: string[];
  region: string | null;
  data_mb: number | null;
  validity_days: number | null;
  price: number;
  currency: string;
  email: string;
  phone_number: string;
  status: StoredStatus;
  smdp_address: string | null;
  matching_id: string | null;
  activation_code: string | null;
  qr_code: string | null;
  supplier_reference: string | null;
  failure_reason: string | null;
  provisioned_at: Date | null;
  cancelled_at: Date | null;
  cancel_requested_at: Date | null;
  refunded_amount: number | null;
  quantity: number;
  unit_price: number | null;
  group_order_id: string | null;
  unit: number | null;
  created_at: Date;
  updated_at: Date;
}

export function toOrder(row: OrderRow): Order {
  const esim =
    row.iccid !== null && row.smdp_address !== null && row.matching_id !== null && row.activation_code !== null && row.qr_code !== null
      ? {
          iccid: row.iccid,
          smdpAddress: row.smdp_address,
          matchingId: row.matching_id,
          activationCode: row.activation_code,
          qrCode: row.qr_code,
          appleInstallUrl: appleInstallUrlOf(row.activation_code),
        }
      : null;
  return {
    id: row.id,
    partnerId: row.partner_id,
    clientRequestId: row.client_request_id,
    fingerprint: row.fingerprint,
    kind: row.kind,
    iccid: row.iccid,
    planId: row.plan_id,
    planName: row.plan_name,
    supplierSku: row.supplier_sku,
    profileType: row.profile_type,
    countries: row.countries,
    region: row.region,
    dataMb: row.data_mb,
    validityDays: row.validity_days,
    price: row.price,
    currency: row.currency,
    email: row.email,
    phoneNumber: row.phone_number,
    status: row.status,
    esim,
    supplierReference: row.supplier_reference,
    failureReason: row.failure_reason,
    provisionedAt: row.provisioned_at,
    cancelledAt: row.cancelled_at,
    cancelRequestedAt: row.cancel_requested_at,
    refundedAmount: row.refunded_amount,
    quantity: row.quantity,
    unitPrice: row.unit_price ?? row.price,
    groupOrderId: row.group_order_id,
    unit: row.unit,
    esims: esim ? [esim] : [],
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export const one = (rows: OrderRow[]) => (rows[0] ? toOrder(rows[0]) : undefined);
