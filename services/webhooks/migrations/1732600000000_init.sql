-- Up Migration

-- One partner-facing event (contract §9), as consumed from PARTNER_EVENTS.
CREATE TABLE events (
  id text PRIMARY KEY CHECK (id LIKE 'evt\_%'),
  partner_id text NOT NULL,
  type text NOT NULL CHECK (type IN ('payment.paid', 'provision.provisioned', 'provision.failed', 'wallet.credited', 'webhook.test')),
  -- Set for order events: deliveries of one order go out in created_at order.
  order_id text,
  -- json, not jsonb: the publisher's key order survives, so the body reads as it was written.
  payload json NOT NULL,
  -- W3C trace context (traceparent, tracestate) of the consumer's span: each attempt joins the order's trace.
  trace_context jsonb NOT NULL DEFAULT '{}',
  -- The event's occurredAt, the body's createdAt.
  created_at timestamptz NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX events_order ON events (partner_id, order_id, created_at, id) WHERE order_id IS NOT NULL;

-- One event on its way to its partner's endpoint.
CREATE TABLE deliveries (
  id text PRIMARY KEY CHECK (id LIKE 'dlv\_%'),
  event_id text NOT NULL UNIQUE REFERENCES events (id),
  partner_id text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed', 'no_endpoint')),
  attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  last_status_code integer CHECK (last_status_code BETWEEN 100 AND 999),
  last_error text CHECK (char_length(last_error) <= 500),
  -- Only a pending delivery has a next attempt.
  next_attempt_at timestamptz CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL)),
  -- A worker's lease on the attempt in flight: no replica claims the row again
  -- before it passes, and only the lease holder may record the outcome.
  locked_until timestamptz,
  lease_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  delivered_at timestamptz
);
CREATE INDEX deliveries_due ON deliveries (next_attempt_at, id) WHERE status = 'pending';
CREATE INDEX deliveries_leased ON deliveries (partner_id) WHERE status = 'pending' AND locked_until IS NOT NULL;
CREATE INDEX deliveries_newest ON deliveries (created_at DESC, id DESC);
CREATE INDEX deliveries_partner_newest ON deliveries (partner_id, created_at DESC, id DESC);

-- Down Migration
DROP TABLE deliveries;
DROP TABLE events;
