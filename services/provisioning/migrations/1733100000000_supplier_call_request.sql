-- Up Migration
-- What was asked of the supplier, so GetProvisioning can ask again under the
-- same reference (the supplier answers the eSIM it issued) when the orders
-- service lost provisioning.succeeded; and the partner-readable reason a
-- failure was published with. Still never the matching id or activation code.
-- Rows written before this migration have NULLs: see getProvisioning.ts.
ALTER TABLE supplier_calls
  ADD COLUMN kind text,
  ADD COLUMN target_iccid text,
  ADD COLUMN data_mb integer,
  ADD COLUMN validity_days integer,
  ADD COLUMN failure_reason text;

-- Down Migration
ALTER TABLE supplier_calls
  DROP COLUMN kind,
  DROP COLUMN target_iccid,
  DROP COLUMN data_mb,
  DROP COLUMN validity_days,
  DROP COLUMN failure_reason;
