-- Up Migration
-- Group orders (contract §7): one order (the group) of `quantity` eSIMs of a
-- plan, paid once. Each eSIM is provisioned by a unit order of its own: a
-- row of this table with group_order_id set, never shown to partners, whose
-- id is the provisioning job's key and the supplier's reference, and which
-- owns its eSIM and first bundle as a single order does.
ALTER TABLE orders
  ADD COLUMN quantity integer NOT NULL DEFAULT 1 CHECK (quantity BETWEEN 1 AND 50),
  -- Null for orders placed before groups existed: their unit price is their price.
  ADD COLUMN unit_price bigint CHECK (unit_price > 0),
  ADD COLUMN group_order_id text REFERENCES orders (id),
  ADD COLUMN unit integer CHECK (unit BETWEEN 0 AND 49),
  ADD CONSTRAINT orders_unit_of_group CHECK ((group_order_id IS NULL) = (unit IS NULL)),
  ADD CONSTRAINT orders_group_price CHECK (unit_price IS NULL OR price = unit_price * quantity);
CREATE UNIQUE INDEX orders_group_unit ON orders (group_order_id, unit) WHERE group_order_id IS NOT NULL;

ALTER TABLE orders DROP CONSTRAINT orders_status_check;
ALTER TABLE orders ADD CONSTRAINT orders_status_check
  CHECK (status IN ('pending', 'processing', 'provisioned', 'partially_provisioned', 'failed', 'cancelled'));
ALTER TABLE orders DROP CONSTRAINT orders_provisioned_has_esim;
ALTER TABLE orders ADD CONSTRAINT orders_provisioned_has_esim CHECK (
  status NOT IN ('provisioned', 'partially_provisioned', 'cancelled')
  OR (iccid IS NOT NULL AND smdp_address IS NOT NULL AND matching_id IS NOT NULL AND activation_code IS NOT NULL AND qr_code IS NOT NULL)
);

-- Down Migration
DELETE FROM orders WHERE group_order_id IS NOT NULL;
ALTER TABLE orders DROP CONSTRAINT orders_provisioned_has_esim;
ALTER TABLE orders ADD CONSTRAINT orders_provisioned_has_esim CHECK (
  status NOT IN ('provisioned', 'cancelled')
  OR (iccid IS NOT NULL AND smdp_address IS NOT NULL AND matching_id IS NOT NULL AND activation_code IS NOT NULL AND qr_code IS NOT NULL)
);
ALTER TABLE orders DROP CONSTRAINT orders_status_check;
ALTER TABLE orders ADD CONSTRAINT orders_status_check CHECK (status IN ('pending', 'processing', 'provisioned', 'failed', 'cancelled'));
DROP INDEX orders_group_unit;
ALTER TABLE orders
  DROP CONSTRAINT orders_group_price,
  DROP CONSTRAINT orders_unit_of_group,
  DROP COLUMN unit,
  DROP COLUMN group_order_id,
  DROP COLUMN unit_price,
  DROP COLUMN quantity;
