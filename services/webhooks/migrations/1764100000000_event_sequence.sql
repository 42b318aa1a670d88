-- Up Migration
-- #23: deliveries of one order go out in the order the webhooks database recorded their events (a sequence it
-- assigns at insert, which follows the stream), not by created_at: that is the event's occurredAt, stamped by the
-- producing replica's clock, and two replicas' clocks may disagree.
ALTER TABLE events ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY;
CREATE INDEX events_order_seq ON events (partner_id, order_id, seq) WHERE order_id IS NOT NULL;

-- Down Migration
DROP INDEX events_order_seq;
ALTER TABLE events DROP COLUMN seq;
