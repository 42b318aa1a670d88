-- Up Migration
-- The event tables every service schema has, declared once (packages/events).
-- IF NOT EXISTS: schemas created before this helper existed already hold them.

-- The transactional outbox: a row is written in the transaction of the state
-- change it announces; the relay publishes it with Nats-Msg-Id = id.
CREATE TABLE IF NOT EXISTS outbox (
  seq bigserial PRIMARY KEY,
  id text NOT NULL UNIQUE,
  subject text NOT NULL,
  payload jsonb NOT NULL,
  headers jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  published_at timestamptz
);
CREATE INDEX IF NOT EXISTS outbox_unpublished ON outbox (seq) WHERE published_at IS NULL;

-- The idempotent consumer's record: an event id here means its effect committed.
CREATE TABLE IF NOT EXISTS processed_events (
  consumer text NOT NULL,
  event_id text NOT NULL,
  processed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (consumer, event_id)
);

-- Down Migration
DROP TABLE IF EXISTS processed_events;
DROP TABLE IF EXISTS outbox;
