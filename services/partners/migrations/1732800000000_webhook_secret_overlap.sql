-- Up Migration

-- §9: after a rotation the old webhook secret keeps signing beside the new one until the overlap ends.
ALTER TABLE partners ADD COLUMN webhook_secret_previous_sealed text;
ALTER TABLE partners ADD COLUMN webhook_secret_previous_until timestamptz;
ALTER TABLE partners ADD CONSTRAINT partners_webhook_secret_previous_check
  CHECK ((webhook_secret_previous_sealed IS NULL) = (webhook_secret_previous_until IS NULL));

-- Down Migration
ALTER TABLE partners DROP CONSTRAINT partners_webhook_secret_previous_check;
ALTER TABLE partners DROP COLUMN webhook_secret_previous_until;
ALTER TABLE partners DROP COLUMN webhook_secret_previous_sealed;
