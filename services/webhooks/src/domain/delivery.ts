import type { DeliveryStatus, PartnerEventType } from '@esim/vocabulary';

/** A partner-facing event as stored: the source of every attempt's body. */
export interface PartnerEvent {
  id: string;
  partnerId: string;
  type: PartnerEventType;
  orderId: string | null;
  /** The body's `data`, in the publisher's key order. */
  payload: unknown;
  /** The event's occurredAt: the body's `createdAt`. */
  createdAt: Date;
  /** W3C trace context of the span that stored the event. */
  traceContext: Record<string, string>;
}

/** One event on its way to one of its partner's endpoints (the delivery log's row). */
export interface Delivery {
  id: string;
  eventId: string;
  eventType: PartnerEventType;
  /** The account id: `ptn_X` live, `ptn_X_test` test (§14). */
  partnerId: string;
  /** From the account id: false for a test delivery. */
  livemode: boolean;
  /** whe_…: the endpoint this delivery goes to. */
  endpointId: string;
  status: DeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  deliveredAt: Date | null;
}

/** A delivery a worker holds the lease on, with the number its attempt will carry. */
export interface ClaimedAttempt {
  deliveryId: string;
  /** whe_…: where this delivery goes. */
  endpointId: string;
  leaseId: string;
  /** 1 for the first attempt; `X-SERVICE-Delivery-Attempt`. */
  attempt: number;
  /** True when an earlier attempt already succeeded (an operator resend): the lag metric counts first deliveries only. */
  deliveredBefore: boolean;
  event: PartnerEvent;
}

/** What an attempt's end writes to the delivery (only while the lease is still ours). */
export type AttemptResult =
  | { status: 'succeeded'; attempts: number; statusCode: number }
  | { status: 'pending'; attempts: number; statusCode: number | null; error: string; nextAttemptInMs: number }
  | { status: 'failed'; attempts: number; statusCode: number | null; error: string }
  | { status: 'no_endpoint'; attempts: number; error: string };

/** last_error is bounded in the table; a partner's TLS or DNS error text can be long. */
export function boundedError(message: string): string {
  return message.length <= 500 ? message : `${message.slice(0, 497)}...`;
}
