-- Up Migration
CREATE TABLE partners (
  id text PRIMARY KEY,
  name text NOT NULL,
  email text NOT NULL UNIQUE,
  company text NOT NULL,
  password_hash text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected', 'suspended')),
  tier text NOT NULL DEFAULT 'standard' CHECK (tier IN ('standard', 'premium', 'enterprise')),
  webhook_url text,
  -- AES-256-GCM under the platform data key: the webhooks service must sign with it.
  webhook_secret_sealed text,
  rejection_reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX partners_status_created ON partners (status, created_at DESC, id);

CREATE TABLE api_keys (
  id text PRIMARY KEY,
  partner_id text NOT NULL REFERENCES partners (id),
  prefix text NOT NULL UNIQUE,
  -- Hex SHA-256 of the secret part; the secret itself is never stored.
  secret_hash text NOT NULL,
  scopes text[] NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX api_keys_partner ON api_keys (partner_id, created_at);

CREATE TABLE audit_log (
  id text PRIMARY KEY,
  action text NOT NULL,
  target text NOT NULL,
  operator text NOT NULL DEFAULT '',
  request_id text NOT NULL DEFAULT '',
  details jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_log_created ON audit_log (created_at DESC, id DESC);

-- Down Migration
DROP TABLE audit_log;
DROP TABLE api_keys;
DROP TABLE partners;
