-- Up Migration
-- Test mode (contract §14): a partner wipes its test data, and the wallet
-- deletes every row of the test account (`ptn_…_test`). Ledger entries stay
-- immutable for everything else: a DELETE passes only for a test account's
-- entry, and only in a transaction that named that account in the setting
-- `wallet.wipe_account` (set_config(…, true), so it ends with the
-- transaction). Live money can never be deleted, not even by a wipe that
-- names a live account; TRUNCATE and UPDATE stay refused for every row.
CREATE OR REPLACE FUNCTION ledger_entries_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND TG_LEVEL = 'ROW'
     AND OLD.partner_id LIKE '%\_test'
     AND OLD.partner_id = current_setting('wallet.wipe_account', true) THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'ledger entries are immutable: % refused', TG_OP USING ERRCODE = 'integrity_constraint_violation';
END $$;

-- Down Migration
CREATE OR REPLACE FUNCTION ledger_entries_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger entries are immutable: % refused', TG_OP USING ERRCODE = 'integrity_constraint_violation';
END $$;
