-- Up Migration
-- The account (contract §14: ptn_X live, ptn_X_test test) each order's rows
-- belong to, as orders.order.paid names it: wiping a partner's test data
-- (partners.test_data.delete_requested) finds that account's rows by it, and
-- an operator can tell a test order's supplier record from a live one's.
-- Rows written before test mode existed are live: NULL is read as live.
ALTER TABLE supplier_calls ADD COLUMN account_id text;
ALTER TABLE smdp_orders ADD COLUMN account_id text;
CREATE INDEX supplier_calls_account ON supplier_calls (account_id);
CREATE INDEX smdp_orders_account ON smdp_orders (account_id);

-- Down Migration
DROP INDEX smdp_orders_account;
DROP INDEX supplier_calls_account;
ALTER TABLE smdp_orders DROP COLUMN account_id;
ALTER TABLE supplier_calls DROP COLUMN account_id;
