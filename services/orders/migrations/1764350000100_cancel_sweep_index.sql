-- Up Migration
-- #29, no query walks history: the cancel sweeper (staleCancellations, every ORDERS_SWEEP_INTERVAL_MS) asks for
-- cancellations under way of 'provisioned' or 'partially_provisioned' orders (#27's groups). orders_cancel_requested
-- holds only 'provisioned' ones, so it cannot answer that, and the sweeper read every order ever placed (a
-- sequential scan, every 5 s: docs/benchmarks.md, "Flat with history"). This index holds only the cancellations
-- under way, in the sweeper's order; it replaces the old one, which no query can use alone any more.
CREATE INDEX orders_cancel_under_way ON orders (cancel_requested_at, id)
  WHERE cancel_requested_at IS NOT NULL AND status IN ('provisioned', 'partially_provisioned');
DROP INDEX orders_cancel_requested;

-- Down Migration
CREATE INDEX orders_cancel_requested ON orders (cancel_requested_at) WHERE cancel_requested_at IS NOT NULL AND status = 'provisioned';
DROP INDEX orders_cancel_under_way;
