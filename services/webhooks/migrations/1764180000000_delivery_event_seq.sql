-- Up Migration

-- #23 meets #28: the claim's per-endpoint ordering check reads the delivery
-- alone (no join to events), so each delivery carries its event's sequence
-- (events.seq, assigned by this database at insert) beside its order id, and
-- the ordering index holds only pending deliveries of an order.
ALTER TABLE deliveries ADD COLUMN event_seq bigint;
UPDATE deliveries d SET event_seq = e.seq FROM events e WHERE e.id = d.event_id;
CREATE INDEX deliveries_pending_order_seq ON deliveries (endpoint_id, order_id, event_seq) WHERE status = 'pending' AND order_id IS NOT NULL;
DROP INDEX deliveries_pending_order;

-- Down Migration
CREATE INDEX deliveries_pending_order ON deliveries (endpoint_id, order_id, event_created_at, event_id) WHERE status = 'pending' AND order_id IS NOT NULL;
DROP INDEX deliveries_pending_order_seq;
ALTER TABLE deliveries DROP COLUMN event_seq;
