-- Up Migration
-- Contract §11 retention (docs/retention.md): the hourly job deletes finished supplier calls past 90 days, oldest
-- first. This index holds only finished calls (supplier_calls_pending holds the others), so the job reads only
-- the rows it deletes.
CREATE INDEX supplier_calls_finished ON supplier_calls (updated_at) WHERE state <> 'pending';

-- Down Migration
DROP INDEX supplier_calls_finished;
