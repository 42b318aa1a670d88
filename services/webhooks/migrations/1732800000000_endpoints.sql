-- Up Migration

-- Contract §9 "Several endpoints per partner": a partner's receivers (whe_…).
-- The primary endpoint is the partner's webhookUrl: its URL and its signing
-- secret (the one e-mailed at approval) stay with the partners service, so
-- its row here holds only what the endpoints API adds (description, filter,
-- enabled) and gives it an id. Every other endpoint keeps its own URL and its
-- own secret, sealed under the data key as the partners service seals its own.
CREATE TABLE endpoints (
  id text PRIMARY KEY CHECK (id LIKE 'whe\_%'),
  partner_id text NOT NULL,
  -- Test mode (§14) slots in here: every query already filters on it.
  livemode boolean NOT NULL DEFAULT true,
  is_primary boolean NOT NULL DEFAULT false,
  url text CHECK (char_length(url) <= 2048),
  description text NOT NULL DEFAULT '' CHECK (char_length(description) <= 500),
  -- NULL: every event type.
  event_types text[] CHECK (event_types IS NULL OR cardinality(event_types) > 0),
  enabled boolean NOT NULL DEFAULT true,
  disabled_reason text CHECK (disabled_reason IS NULL OR disabled_reason = 'failing'),
  secret_sealed text,
  -- During a rotation's overlap, the old secret still signs beside the new one.
  previous_secret_sealed text,
  previous_secret_until timestamptz CHECK ((previous_secret_sealed IS NULL) = (previous_secret_until IS NULL)),
  -- Since when every attempt has failed (NULL after a success), and how many: auto-disable (§9).
  failing_since timestamptz,
  failed_attempts integer NOT NULL DEFAULT 0 CHECK (failed_attempts >= 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (is_primary = (url IS NULL)),
  CHECK (is_primary OR secret_sealed IS NOT NULL)
);
CREATE UNIQUE INDEX endpoints_primary ON endpoints (partner_id, livemode) WHERE is_primary;
CREATE INDEX endpoints_partner ON endpoints (partner_id, livemode, created_at, id);

-- Deliveries made before endpoints existed went to the partner's webhookUrl: its primary endpoint.
INSERT INTO endpoints (id, partner_id, is_primary)
SELECT 'whe_' || substr(md5(partner_id), 1, 26), partner_id, true FROM (SELECT DISTINCT partner_id FROM deliveries) p;

-- One delivery per event per endpoint.
ALTER TABLE deliveries ADD COLUMN endpoint_id text;
UPDATE deliveries d SET endpoint_id = e.id FROM endpoints e WHERE e.partner_id = d.partner_id AND e.is_primary;
ALTER TABLE deliveries ALTER COLUMN endpoint_id SET NOT NULL;
ALTER TABLE deliveries DROP CONSTRAINT deliveries_event_id_key;
CREATE UNIQUE INDEX deliveries_event_endpoint ON deliveries (event_id, endpoint_id);
CREATE INDEX deliveries_endpoint_newest ON deliveries (endpoint_id, created_at DESC, id DESC);

-- §9 adds wallet.balance_low and webhook.endpoint_disabled (the list equals @esim/vocabulary's partnerEventTypes; a test checks it).
ALTER TABLE events DROP CONSTRAINT events_type_check;
ALTER TABLE events ADD CONSTRAINT events_type_check CHECK (type IN (
  'payment.paid', 'provision.provisioned', 'provision.failed', 'wallet.credited', 'webhook.test',
  'esim.installed', 'esim.usage_threshold', 'esim.bundle_expired', 'order.cancelled',
  'wallet.balance_low', 'webhook.endpoint_disabled'));
-- Recover (§9) reads a partner's events of the last 30 days in order.
CREATE INDEX events_partner_created ON events (partner_id, created_at, id);

-- Down Migration
ALTER TABLE events DROP CONSTRAINT events_type_check;
ALTER TABLE events ADD CONSTRAINT events_type_check CHECK (type IN (
  'payment.paid', 'provision.provisioned', 'provision.failed', 'wallet.credited', 'webhook.test',
  'esim.installed', 'esim.usage_threshold', 'esim.bundle_expired', 'order.cancelled'));
DROP INDEX events_partner_created;
DROP INDEX deliveries_endpoint_newest;
DROP INDEX deliveries_event_endpoint;
ALTER TABLE deliveries DROP COLUMN endpoint_id;
DROP TABLE endpoints;
