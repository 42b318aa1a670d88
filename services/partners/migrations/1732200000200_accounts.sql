-- Up Migration
-- #24: proved e-mail addresses, single-use account tokens, portal session versions and operator accounts.
ALTER TABLE partners ADD COLUMN email_verified_at timestamptz;
-- Raised by every password change or reset; a portal token issued under an older value is refused.
ALTER TABLE partners ADD COLUMN session_version integer NOT NULL DEFAULT 0;
-- Accounts that existed before verification was required keep working as they did.
UPDATE partners SET email_verified_at = created_at WHERE status <> 'pending';

-- E-mail verification (24 h) and password reset (30 min) tokens: only the SHA-256 of the token is stored.
CREATE TABLE account_tokens (
  token_hash text PRIMARY KEY,
  partner_id text NOT NULL REFERENCES partners (id) ON DELETE CASCADE,
  purpose text NOT NULL CHECK (purpose IN ('verify_email', 'reset_password')),
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX account_tokens_partner ON account_tokens (partner_id, purpose);

CREATE TABLE operators (
  id text PRIMARY KEY,
  email text NOT NULL,
  name text NOT NULL,
  role text NOT NULL CHECK (role IN ('viewer', 'support', 'finance', 'admin')),
  prefix text NOT NULL UNIQUE,
  -- Hex SHA-256 of the token's secret part; the token itself is never stored.
  secret_hash text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX operators_created ON operators (created_at DESC, id DESC);

-- Down Migration
DROP TABLE operators;
DROP TABLE account_tokens;
ALTER TABLE partners DROP COLUMN session_version;
ALTER TABLE partners DROP COLUMN email_verified_at;
