-- Up Migration

-- Events are kept 30 days (recover, §9; docs/webhooks.md): the retention job deletes the oldest first.
CREATE INDEX events_created ON events (created_at);

-- Down Migration
DROP INDEX events_created;
