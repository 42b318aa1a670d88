-- Up Migration
-- Group orders (contract §7): a group some of whose eSIMs could not be
-- provisioned keeps the price of those that were (captured) and gets the
-- missing ones back as one refund entry, recorded here; a later cancellation
-- of the group refunds the rest as a second, final entry. So an order has at
-- most one refund of its missing units (reference 'missing-units') and at
-- most one final refund (no reference).
ALTER TABLE reservations ADD COLUMN partial_refund_entry_id text UNIQUE REFERENCES ledger_entries (id);
DROP INDEX ledger_entries_one_refund_per_order;
CREATE UNIQUE INDEX ledger_entries_one_refund_per_order ON ledger_entries (order_id, (reference IS NULL)) WHERE type = 'refund';
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_refund_reference CHECK (type <> 'refund' OR reference IS NULL OR reference = 'missing-units');

-- Down Migration
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_refund_reference;
DROP INDEX ledger_entries_one_refund_per_order;
CREATE UNIQUE INDEX ledger_entries_one_refund_per_order ON ledger_entries (order_id) WHERE type = 'refund';
ALTER TABLE reservations DROP COLUMN partial_refund_entry_id;
