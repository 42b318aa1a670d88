-- Up Migration
-- Test mode (contract §14): a test account's orders are deleted on request,
-- possibly while provisioning is still working on some of them. The ids of
-- the orders that were still in flight are kept here for a week, so a late
-- provisioning.succeeded / provisioning.failed / wallet.order.refunded about
-- one is acknowledged as expected instead of failing for good (a dead letter
-- an operator would be paged about for test data). Pruned at each wipe.
CREATE TABLE wiped_test_orders (
  order_id text PRIMARY KEY CHECK (order_id LIKE 'ord\_%'),
  wiped_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX wiped_test_orders_wiped_at ON wiped_test_orders (wiped_at);

-- Down Migration
DROP TABLE wiped_test_orders;
