-- Up Migration

-- The delivery worker's claim reads only pending deliveries (#28): under a
-- burst it walked entries of finished ones (33,000 index entries per order in
-- a 60 s burst, growing with history), since the per-partner lookup fell on
-- deliveries_partner_newest and the ordering check on the partner's events.
-- A delivery now carries its event's order and time, so the ordering check
-- reads one small partial index, and the claim's per-partner lookup has a
-- partial index in its own order. docs/benchmarks.md has the figures.
ALTER TABLE deliveries ADD COLUMN order_id text;
ALTER TABLE deliveries ADD COLUMN event_created_at timestamptz;
UPDATE deliveries d SET order_id = e.order_id, event_created_at = e.created_at FROM events e WHERE e.id = d.event_id;
-- `next_attempt_at IS NOT NULL` (always true of a pending delivery, by the table's CHECK) is in the
-- predicate so that only queries that say so can use this index: the ordering probe below cannot,
-- and so never scans it whole when statistics taken at rest make every pending index look empty.
CREATE INDEX deliveries_claimable ON deliveries (partner_id, next_attempt_at, id) WHERE status = 'pending' AND next_attempt_at IS NOT NULL;
CREATE INDEX deliveries_pending_order ON deliveries (endpoint_id, order_id, event_created_at, event_id) WHERE status = 'pending' AND order_id IS NOT NULL;
-- deliveries_claimable serves what it served (the soonest due time).
DROP INDEX deliveries_due;

-- Down Migration
CREATE INDEX deliveries_due ON deliveries (next_attempt_at, id) WHERE status = 'pending';
DROP INDEX deliveries_pending_order;
DROP INDEX deliveries_claimable;
ALTER TABLE deliveries DROP COLUMN event_created_at;
ALTER TABLE deliveries DROP COLUMN order_id;
