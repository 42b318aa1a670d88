-- Up Migration
-- What a traveller gets (contract §5): unlimited plans with their fair use,
-- networks per country, voice/SMS, KYC, top-ups and when validity starts;
-- and the operator-only SM-DP+ profile type. Existing plans keep their
-- behaviour: limited, data only, no KYC, top-upable, validity from first use.
ALTER TABLE plans
  ALTER COLUMN data_mb DROP NOT NULL,
  ADD COLUMN unlimited boolean NOT NULL DEFAULT false,
  ADD COLUMN fair_use_mb integer CHECK (fair_use_mb > 0),
  ADD COLUMN throttle_kbps integer CHECK (throttle_kbps > 0),
  -- [{country, operator, generations: ["4G","5G"]}], one entry per country and operator.
  ADD COLUMN networks jsonb NOT NULL DEFAULT '[]'::jsonb CHECK (jsonb_typeof(networks) = 'array'),
  ADD COLUMN voice boolean NOT NULL DEFAULT false,
  ADD COLUMN sms boolean NOT NULL DEFAULT false,
  ADD COLUMN kyc_required boolean NOT NULL DEFAULT false,
  ADD COLUMN top_upable boolean NOT NULL DEFAULT true,
  ADD COLUMN activation_policy text NOT NULL DEFAULT 'first_use' CHECK (activation_policy IN ('first_use', 'on_install', 'on_purchase')),
  ADD COLUMN profile_type text CHECK (profile_type IS NULL OR char_length(profile_type) BETWEEN 1 AND 64),
  ADD CONSTRAINT plans_allowance CHECK (
    (unlimited AND data_mb IS NULL AND fair_use_mb IS NOT NULL AND throttle_kbps IS NOT NULL)
    OR (NOT unlimited AND data_mb IS NOT NULL AND fair_use_mb IS NULL AND throttle_kbps IS NULL)
  );

-- Down Migration
DELETE FROM plans WHERE unlimited;
ALTER TABLE plans
  DROP CONSTRAINT plans_allowance,
  DROP COLUMN profile_type,
  DROP COLUMN activation_policy,
  DROP COLUMN top_upable,
  DROP COLUMN kyc_required,
  DROP COLUMN sms,
  DROP COLUMN voice,
  DROP COLUMN networks,
  DROP COLUMN throttle_kbps,
  DROP COLUMN fair_use_mb,
  DROP COLUMN unlimited,
  ALTER COLUMN data_mb SET NOT NULL;
