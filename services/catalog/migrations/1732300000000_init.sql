-- Up Migration
CREATE TABLE plans (
  id text PRIMARY KEY CHECK (id LIKE 'plan\_%'),
  name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  -- ISO 3166-1 alpha-2, upper case; a regional plan lists every covered country.
  countries text[] NOT NULL CHECK (
    cardinality(countries) > 0
    AND array_position(countries, NULL) IS NULL
    AND array_to_string(countries, ',') ~ '^[A-Z]{2}(,[A-Z]{2})*$'
  ),
  region text CHECK (region IS NULL OR char_length(region) BETWEEN 1 AND 100),
  data_mb integer NOT NULL CHECK (data_mb > 0),
  validity_days integer NOT NULL CHECK (validity_days > 0),
  -- Money in minor units. retail > floor > cost holds for the seed, but an
  -- operator may price below it on purpose (a promotion), so only positivity is enforced.
  floor_price bigint NOT NULL CHECK (floor_price > 0),
  retail_price bigint NOT NULL CHECK (retail_price > 0),
  supplier_sku text NOT NULL UNIQUE CHECK (char_length(supplier_sku) BETWEEN 1 AND 64),
  supplier_cost bigint NOT NULL CHECK (supplier_cost > 0),
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- "Plans covering FR" is `countries @> ARRAY['FR']`, which this index answers.
CREATE INDEX plans_countries ON plans USING gin (countries);
CREATE INDEX plans_created ON plans (created_at DESC, id DESC);

CREATE TABLE outbox (
  seq bigserial PRIMARY KEY,
  id text NOT NULL UNIQUE,
  subject text NOT NULL,
  payload jsonb NOT NULL,
  headers jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  published_at timestamptz
);
CREATE INDEX outbox_unpublished ON outbox (seq) WHERE published_at IS NULL;

CREATE TABLE processed_events (
  consumer text NOT NULL,
  event_id text NOT NULL,
  processed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (consumer, event_id)
);

-- One row per data seed applied, so a seed runs once per database however many replicas start.
CREATE TABLE seeds (
  name text PRIMARY KEY,
  applied_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE seeds;
DROP TABLE processed_events;
DROP TABLE outbox;
DROP TABLE plans;
