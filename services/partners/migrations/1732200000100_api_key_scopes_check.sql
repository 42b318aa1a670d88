-- Up Migration
-- The scopes a key may hold are a closed vocabulary (@esim/vocabulary `scopes`); a test keeps this list equal to it.
ALTER TABLE api_keys ADD CONSTRAINT api_keys_scopes_check CHECK (
  cardinality(scopes) > 0 AND scopes <@ ARRAY['catalog:read', 'orders:write', 'orders:read', 'wallet:read']::text[]
);

-- Down Migration
ALTER TABLE api_keys DROP CONSTRAINT api_keys_scopes_check;
