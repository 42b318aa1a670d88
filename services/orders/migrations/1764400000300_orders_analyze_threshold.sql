-- Up Migration
-- #29: the idempotency lookup (partner_id, client_request_id) is answered from the unique key only while the
-- planner knows the table. Unanalyzed, it costs that key and the partner's list index (orders_partner_created)
-- the same, and may walk the partner's orders instead (docs/benchmarks.md, "Flat with history"). Autovacuum's
-- default (analyze after 50 rows plus 10 % of the table changed) lets the statistics of a table that grows with
-- traffic lag further behind the bigger it gets: after 100 million orders, 10 million more before the next
-- analyze. As with the wallet's money tables (1764000000000_chain_keys_by_entry.sql), a fixed threshold instead:
-- an order changes its row about four times, so about every 250 orders, and never more often than autovacuum's
-- naptime (a minute by default) per table.
ALTER TABLE orders SET (autovacuum_analyze_scale_factor = 0, autovacuum_analyze_threshold = 1000);

-- Down Migration
ALTER TABLE orders RESET (autovacuum_analyze_scale_factor, autovacuum_analyze_threshold);
