import { livemodeOf } from '@esim/ids';
import type { DeliveryStatus, PartnerEventType } from '@esim/vocabulary';
import type { Delivery, PartnerEvent } from '../domain/delivery.js';

/** Row shapes of the webhooks schema, as pg returns them; nothing snake_case leaves the store. */
export interface EventRow {
  id: string;
  partner_id: string;
  type: PartnerEventType;
  order_id: string | null;
  payload: unknown;
  trace_context: Record<string, string>;
  created_at: Date;
}

export interface DeliveryRow {
  id: string;
  event_id: string;
  event_type: PartnerEventType;
  partner_id: string;
  endpoint_id: string;
  status: DeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: Date | null;
  created_at: Date;
  updated_at: Date;
  delivered_at: Date | null;
}

export function eventOf(row: EventRow): PartnerEvent {
  return {
    id: row.id,
    partnerId: row.partner_id,
    type: row.type,
    orderId: row.order_id,
    payload: row.payload,
    createdAt: row.created_at,
    traceContext: row.trace_context,
  };
}

export function deliveryOf(row: DeliveryRow): Delivery {
  return {
    id: row.id,
    eventId: row.event_id,
    eventType: row.event_type,
    partnerId: row.partner_id,
    livemode: livemodeOf(row.partner_id),
    endpointId: row.endpoint_id,
    status: row.status,
    attempts: row.attempts,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    nextAttemptAt: row.next_attempt_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    deliveredAt: row.delivered_at,
  };
}

/** The columns a Delivery is read from, with the event's type joined in (`d` deliveries, `e` events). */
export const deliveryColumns = `d.id, d.event_id, e.type AS event_type, d.partner_id, d.endpoint_id, d.status, d.attempts, d.last_status_code,
  d.last_error, d.next_attempt_at, d.created_at, d.updated_at, d.delivered_at`;
