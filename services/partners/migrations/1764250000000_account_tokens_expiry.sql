-- Up Migration
-- Contract §11 retention (docs/retention.md): the hourly job deletes tokens a week after they expired, oldest first.
CREATE INDEX account_tokens_expires ON account_tokens (expires_at);

-- Down Migration
DROP INDEX account_tokens_expires;
