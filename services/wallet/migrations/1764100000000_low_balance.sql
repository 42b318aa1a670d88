-- Up Migration

-- §9 wallet.balance_low: the partner's threshold and whether the current dip below it was announced.
-- Kept on the wallet row, which every money movement locks, so the check and the event share the movement's transaction.
ALTER TABLE wallets ADD COLUMN low_balance_threshold bigint CHECK (low_balance_threshold >= 0);
ALTER TABLE wallets ADD COLUMN low_balance_announced boolean NOT NULL DEFAULT false;

-- Down Migration
ALTER TABLE wallets DROP COLUMN low_balance_announced;
ALTER TABLE wallets DROP COLUMN low_balance_threshold;
