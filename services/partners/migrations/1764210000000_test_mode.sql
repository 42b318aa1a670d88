-- Up Migration

-- §14: a key is live (sk_live_) or test (sk_test_). Test keys belong to the
-- partner like live ones (partner_id stays the partner); the gateway turns
-- livemode = false into the partner's test account (ptn_…_test).
ALTER TABLE api_keys ADD COLUMN livemode boolean NOT NULL DEFAULT true;
-- "At most 5 active test keys" counts these rows under the partner's lock.
CREATE INDEX api_keys_partner_active_test ON api_keys (partner_id) WHERE NOT livemode AND revoked_at IS NULL;

-- §14: test events go to their own URL, signed with their own secret
-- (AES-256-GCM, associated data bound to the test account id).
ALTER TABLE partners ADD COLUMN test_webhook_url text;
ALTER TABLE partners ADD COLUMN test_webhook_secret_sealed text;

-- Down Migration
ALTER TABLE partners DROP COLUMN test_webhook_secret_sealed;
ALTER TABLE partners DROP COLUMN test_webhook_url;
DROP INDEX api_keys_partner_active_test;
ALTER TABLE api_keys DROP COLUMN livemode;
