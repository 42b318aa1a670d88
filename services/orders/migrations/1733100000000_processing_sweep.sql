-- Up Migration
-- "Which orders have been processing longest?": the processing sweeper's scan
-- (settleProcessingOrders), in its order, touching only processing rows.
CREATE INDEX orders_processing_updated ON orders (updated_at, id) WHERE status = 'processing';

-- Down Migration
DROP INDEX orders_processing_updated;
