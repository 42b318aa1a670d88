-- Up Migration
-- The reconciliation (contract §11): each run, and each mismatch it found with what was done about it.
CREATE TABLE reconciliation_runs (
  id text PRIMARY KEY,
  trigger text NOT NULL CHECK (trigger IN ('operator', 'daily')),
  started_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
);
CREATE INDEX reconciliation_runs_started ON reconciliation_runs (started_at DESC, id DESC);

CREATE TABLE reconciliation_findings (
  run_id text NOT NULL REFERENCES reconciliation_runs (id) ON DELETE CASCADE,
  seq integer NOT NULL,
  kind text NOT NULL,
  order_id text,
  partner_id text,
  amount bigint,
  detail text NOT NULL,
  action text NOT NULL CHECK (action IN ('released', 'refunded', 'flagged')),
  PRIMARY KEY (run_id, seq)
);

-- Down Migration
DROP TABLE reconciliation_findings;
DROP TABLE reconciliation_runs;
