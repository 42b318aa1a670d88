-- Up Migration
-- The operator's record of what was asked of the supplier, one row per order:
-- how many calls, what the supplier last said, where it ended. Never the eSIM's
-- matching id or activation code: those travel only in provisioning.succeeded.
CREATE TABLE supplier_calls (
  order_id text PRIMARY KEY,
  sku text NOT NULL,
  attempts integer NOT NULL CHECK (attempts >= 0),
  -- The values of supplierCallStates (src/domain/supplierCall.ts); a test holds the two together.
  state text NOT NULL CHECK (state IN ('pending', 'succeeded', 'failed')),
  last_status_code integer CHECK (last_status_code BETWEEN 100 AND 599),
  last_error text,
  supplier_reference text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- "Which orders are still being retried, oldest first?"
CREATE INDEX supplier_calls_pending ON supplier_calls (updated_at) WHERE state = 'pending';

-- Down Migration
DROP TABLE supplier_calls;
