-- Up Migration
CREATE TABLE orders (
  id text PRIMARY KEY CHECK (id LIKE 'ord\_%'),
  partner_id text NOT NULL,
  -- The partner's idempotency key, unique per partner forever (contract §7).
  client_request_id text NOT NULL CHECK (client_request_id ~ '^[A-Za-z0-9._:-]{1,64}$'),
  -- Hex SHA-256 of the canonical request body: a reused key with another body is a conflict.
  fingerprint text NOT NULL CHECK (fingerprint ~ '^[0-9a-f]{64}$'),
  plan_id text NOT NULL,
  plan_name text NOT NULL,
  -- Copied at order time, so the sweeper can announce the payment without the catalog.
  supplier_sku text NOT NULL,
  price bigint NOT NULL CHECK (price > 0),
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  email text NOT NULL,
  phone_number text NOT NULL,
  -- 'pending' is internal (row written, payment not yet confirmed) and never shown;
  -- the others are @esim/vocabulary's orderStatuses (a test keeps them equal).
  status text NOT NULL CONSTRAINT orders_status_check CHECK (status IN ('pending', 'processing', 'provisioned', 'failed')),
  iccid text,
  smdp_address text,
  matching_id text,
  activation_code text,
  -- PNG data URL of activation_code, drawn once when the eSIM arrives.
  qr_code text,
  supplier_reference text,
  failure_reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT orders_client_request UNIQUE (partner_id, client_request_id),
  CONSTRAINT orders_provisioned_has_esim CHECK (
    status <> 'provisioned'
    OR (iccid IS NOT NULL AND smdp_address IS NOT NULL AND matching_id IS NOT NULL AND activation_code IS NOT NULL AND qr_code IS NOT NULL)
  ),
  CONSTRAINT orders_failed_has_reason CHECK (status <> 'failed' OR failure_reason IS NOT NULL)
);
-- A partner's list, newest first with ties by id, so paging is stable.
CREATE INDEX orders_partner_created ON orders (partner_id, created_at DESC, id DESC);
-- Operators' lists by status, and the sweeper's scan of old 'pending' rows.
CREATE INDEX orders_status_created ON orders (status, created_at DESC, id DESC);
-- Operators' list of every order.
CREATE INDEX orders_created ON orders (created_at DESC, id DESC);

-- Down Migration
DROP TABLE orders;
