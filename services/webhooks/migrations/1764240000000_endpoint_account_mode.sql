-- Up Migration

-- Test mode (§14): every row here is keyed by the ACCOUNT id (`ptn_X` live,
-- `ptn_X_test` test), as events and deliveries already are. An endpoint's
-- livemode is therefore a function of its partner_id; the column stays (its
-- indexes serve the per-mode queries) but can no longer disagree with the id.
ALTER TABLE endpoints ADD CONSTRAINT endpoints_livemode_of_account CHECK (livemode = (partner_id NOT LIKE '%\_test'));

-- Down Migration
ALTER TABLE endpoints DROP CONSTRAINT endpoints_livemode_of_account;
