-- Up Migration
-- Contract §11 retention: processed_events is pruned by age (the outbox relay, every ten minutes), so this index keeps
-- the prune cheap however large the table has grown.
CREATE INDEX IF NOT EXISTS processed_events_age ON processed_events (processed_at);

-- Down Migration
DROP INDEX IF EXISTS processed_events_age;
