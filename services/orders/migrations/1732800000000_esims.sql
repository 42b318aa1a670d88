-- Up Migration

-- Contract §13: orders gain a kind (a new eSIM or a top-up of one), the
-- plan's shape (the top-up rules and the eSIM's bundles read it), and the
-- cancellation's columns.
ALTER TABLE orders
  ADD COLUMN kind text NOT NULL DEFAULT 'esim' CONSTRAINT orders_kind_check CHECK (kind IN ('esim', 'topup')),
  ADD COLUMN countries text[] NOT NULL DEFAULT '{}',
  ADD COLUMN region text,
  ADD COLUMN data_mb integer CHECK (data_mb > 0),
  ADD COLUMN validity_days integer CHECK (validity_days > 0),
  ADD COLUMN provisioned_at timestamptz,
  ADD COLUMN cancelled_at timestamptz,
  -- Set (and committed) before the supplier is asked to revoke: the cancel
  -- sweeper completes any cancellation a crash left half done.
  ADD COLUMN cancel_requested_at timestamptz,
  ADD COLUMN refunded_amount bigint CHECK (refunded_amount > 0);
UPDATE orders SET provisioned_at = updated_at WHERE status = 'provisioned';

ALTER TABLE orders DROP CONSTRAINT orders_status_check;
ALTER TABLE orders ADD CONSTRAINT orders_status_check CHECK (status IN ('pending', 'processing', 'provisioned', 'failed', 'cancelled'));
ALTER TABLE orders DROP CONSTRAINT orders_provisioned_has_esim;
ALTER TABLE orders ADD CONSTRAINT orders_provisioned_has_esim CHECK (
  status NOT IN ('provisioned', 'cancelled')
  OR (iccid IS NOT NULL AND smdp_address IS NOT NULL AND matching_id IS NOT NULL AND activation_code IS NOT NULL AND qr_code IS NOT NULL)
);
-- A top-up names its eSIM from the start.
ALTER TABLE orders ADD CONSTRAINT orders_topup_has_iccid CHECK (kind <> 'topup' OR iccid IS NOT NULL);
ALTER TABLE orders ADD CONSTRAINT orders_cancelled_is_refunded CHECK ((status = 'cancelled') = (cancelled_at IS NOT NULL AND refunded_amount IS NOT NULL));
-- The top-ups of one eSIM (the cancel rule "no top-up that is not cancelled").
CREATE INDEX orders_iccid ON orders (iccid) WHERE iccid IS NOT NULL;
-- The cancel sweeper's scan.
CREATE INDEX orders_cancel_requested ON orders (cancel_requested_at) WHERE cancel_requested_at IS NOT NULL AND status = 'provisioned';

-- One eSIM, created when its first order is provisioned (contract §13).
CREATE TABLE esims (
  iccid text PRIMARY KEY CHECK (iccid ~ '^[0-9]{18,22}$'),
  partner_id text NOT NULL,
  -- The first order, whose cancellation cancels the eSIM.
  order_id text NOT NULL UNIQUE REFERENCES orders (id),
  status text NOT NULL CONSTRAINT esims_status_check CHECK (status IN ('released', 'installed', 'cancelled')),
  smdp_address text NOT NULL,
  matching_id text NOT NULL,
  activation_code text NOT NULL,
  -- The first plan's: every top-up must cover them.
  countries text[] NOT NULL,
  region text,
  installed_at timestamptz,
  -- occurredAt of the latest use recorded (the view's usage.updatedAt).
  usage_updated_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX esims_partner_created ON esims (partner_id, created_at DESC, iccid DESC);
CREATE INDEX esims_created ON esims (created_at DESC, iccid DESC);

-- One bundle per provisioned order: the first order's and each top-up's.
CREATE TABLE bundles (
  order_id text PRIMARY KEY REFERENCES orders (id),
  iccid text NOT NULL REFERENCES esims (iccid),
  -- Creation order: the oldest queued bundle starts when the active one ends.
  seq bigint GENERATED ALWAYS AS IDENTITY,
  plan_id text NOT NULL,
  plan_name text NOT NULL,
  data_mb integer NOT NULL CHECK (data_mb > 0),
  data_used_mb integer NOT NULL DEFAULT 0 CHECK (data_used_mb >= 0 AND data_used_mb <= data_mb),
  validity_days integer NOT NULL CHECK (validity_days > 0),
  status text NOT NULL CONSTRAINT bundles_status_check CHECK (status IN ('queued', 'active', 'depleted', 'expired', 'cancelled')),
  activated_at timestamptz,
  expires_at timestamptz,
  -- When esim.usage_threshold 80 / 100 was emitted: once each per bundle.
  threshold_80_at timestamptz,
  threshold_100_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT bundles_active_has_dates CHECK (status <> 'active' OR (activated_at IS NOT NULL AND expires_at IS NOT NULL))
);
CREATE INDEX bundles_iccid_seq ON bundles (iccid, seq);

-- Every supplier notification (contract §13), by its id: a second delivery
-- is a duplicate. applied_at is null while its eSIM or bundle is not known
-- yet (provisioning has not recorded it); it is applied when it appears.
CREATE TABLE supplier_notifications (
  id text PRIMARY KEY CHECK (char_length(id) BETWEEN 1 AND 100),
  type text NOT NULL CONSTRAINT supplier_notifications_type_check CHECK (type IN ('esim.installed', 'bundle.usage', 'bundle.expired')),
  iccid text NOT NULL,
  reference text,
  data_used_mb integer CHECK (data_used_mb >= 0),
  occurred_at timestamptz NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  applied_at timestamptz,
  CONSTRAINT supplier_notifications_shape CHECK (
    (type = 'esim.installed')
    OR (type = 'bundle.usage' AND reference IS NOT NULL AND data_used_mb IS NOT NULL)
    OR (type = 'bundle.expired' AND reference IS NOT NULL)
  )
);
CREATE INDEX supplier_notifications_unapplied ON supplier_notifications (iccid, occurred_at, received_at) WHERE applied_at IS NULL;

-- Down Migration
DROP TABLE supplier_notifications;
DROP TABLE bundles;
DROP TABLE esims;
DROP INDEX orders_cancel_requested;
DROP INDEX orders_iccid;
ALTER TABLE orders DROP CONSTRAINT orders_cancelled_is_refunded;
ALTER TABLE orders DROP CONSTRAINT orders_topup_has_iccid;
ALTER TABLE orders DROP CONSTRAINT orders_provisioned_has_esim;
ALTER TABLE orders ADD CONSTRAINT orders_provisioned_has_esim CHECK (
  status <> 'provisioned'
  OR (iccid IS NOT NULL AND smdp_address IS NOT NULL AND matching_id IS NOT NULL AND activation_code IS NOT NULL AND qr_code IS NOT NULL)
);
ALTER TABLE orders DROP CONSTRAINT orders_status_check;
ALTER TABLE orders ADD CONSTRAINT orders_status_check CHECK (status IN ('pending', 'processing', 'provisioned', 'failed'));
ALTER TABLE orders DROP COLUMN refunded_amount, DROP COLUMN cancel_requested_at, DROP COLUMN cancelled_at, DROP COLUMN provisioned_at,
  DROP COLUMN validity_days, DROP COLUMN data_mb, DROP COLUMN region, DROP COLUMN countries, DROP COLUMN kind;
