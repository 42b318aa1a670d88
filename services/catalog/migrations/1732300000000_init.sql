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

-- One row per data seed applied, so a seed runs once per database however many replicas start.
CREATE TABLE seeds (
  name text PRIMARY KEY,
  applied_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE seeds;
DROP TABLE plans;
