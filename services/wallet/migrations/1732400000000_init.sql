-- Up Migration
-- The wallet's money invariants (contract §6) are enforced here, not only in
-- code: balance = sum of the ledger, balanceAfter chains, never below zero,
-- one debit and one refund per order, one top-up per bank reference.

-- One partner's balance, always equal to the balance_after of the partner's
-- newest ledger entry (checked by the deferred key below and by
-- wallets_at_tail). Every money movement locks this row first, so the
-- movements of one partner are serialized.
CREATE TABLE wallets (
  partner_id text PRIMARY KEY CHECK (char_length(partner_id) BETWEEN 1 AND 64),
  balance bigint NOT NULL DEFAULT 0 CHECK (balance >= 0),
  last_entry_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  -- Without entries there is no money: the key below cannot check a NULL entry.
  CONSTRAINT wallets_empty_is_zero CHECK (last_entry_id IS NOT NULL OR balance = 0)
);

-- The immutable ledger: one row per money movement, chained per partner.
CREATE TABLE ledger_entries (
  id text PRIMARY KEY CHECK (id ~ '^led_[0-9a-z]{26}$'),
  partner_id text NOT NULL REFERENCES wallets (partner_id),
  -- Position in the partner's chain (1, 2, …), set by ledger_entries_number; it orders the ledger.
  seq bigint NOT NULL CHECK (seq >= 1),
  prev_entry_id text,
  type text NOT NULL CONSTRAINT ledger_entries_type_check CHECK (type IN ('topup', 'order_debit', 'refund', 'adjustment')),
  amount bigint NOT NULL,
  balance_before bigint NOT NULL,
  balance_after bigint NOT NULL,
  order_id text CHECK (char_length(order_id) BETWEEN 1 AND 64),
  reference text CHECK (char_length(reference) BETWEEN 1 AND 100),
  description text CHECK (char_length(description) <= 1000),
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  CONSTRAINT ledger_entries_amount_sign CHECK (
    (type = 'topup' AND amount > 0)
    OR (type = 'order_debit' AND amount < 0)
    OR (type = 'refund' AND amount > 0)
    OR (type = 'adjustment' AND amount <> 0)
  ),
  CONSTRAINT ledger_entries_arithmetic CHECK (balance_after >= 0 AND balance_after = balance_before + amount),
  -- A partner's first entry starts from an empty wallet.
  CONSTRAINT ledger_entries_first_from_zero CHECK (prev_entry_id IS NOT NULL OR balance_before = 0),
  CONSTRAINT ledger_entries_order_id CHECK ((type IN ('order_debit', 'refund')) = (order_id IS NOT NULL)),
  CONSTRAINT ledger_entries_reference CHECK ((type = 'topup') = (reference IS NOT NULL)),
  -- The chain: each entry starts from its predecessor's balance_after, has at
  -- most one successor, and each partner has one first entry.
  CONSTRAINT ledger_entries_chain_target UNIQUE (partner_id, id, balance_after),
  CONSTRAINT ledger_entries_one_successor UNIQUE (prev_entry_id),
  CONSTRAINT ledger_entries_chain FOREIGN KEY (partner_id, prev_entry_id, balance_before)
    REFERENCES ledger_entries (partner_id, id, balance_after)
);
CREATE UNIQUE INDEX ledger_entries_one_first ON ledger_entries (partner_id) WHERE prev_entry_id IS NULL;
CREATE UNIQUE INDEX ledger_entries_position ON ledger_entries (partner_id, seq);
CREATE UNIQUE INDEX ledger_entries_one_debit_per_order ON ledger_entries (order_id) WHERE type = 'order_debit';
CREATE UNIQUE INDEX ledger_entries_one_refund_per_order ON ledger_entries (order_id) WHERE type = 'refund';
CREATE UNIQUE INDEX ledger_entries_topup_reference ON ledger_entries (partner_id, reference) WHERE type = 'topup';

-- The balance is the newest entry's balance_after; deferred, because the entry
-- and the wallet's new head are written one after the other in one transaction.
ALTER TABLE wallets ADD CONSTRAINT wallets_balance_is_last_entry
  FOREIGN KEY (partner_id, last_entry_id, balance) REFERENCES ledger_entries (partner_id, id, balance_after)
  DEFERRABLE INITIALLY DEFERRED;

-- Functions resolve table names with the migration's search_path (the wallet
-- schema), whatever the calling session's search_path is.
CREATE FUNCTION ledger_entries_number() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  NEW.seq := COALESCE((SELECT seq + 1 FROM ledger_entries WHERE id = NEW.prev_entry_id), 1);
  RETURN NEW;
END $$;
CREATE TRIGGER ledger_entries_number BEFORE INSERT ON ledger_entries
  FOR EACH ROW EXECUTE FUNCTION ledger_entries_number();

CREATE FUNCTION ledger_entries_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger entries are immutable: % refused', TG_OP USING ERRCODE = 'integrity_constraint_violation';
END $$;
CREATE TRIGGER ledger_entries_no_update BEFORE UPDATE OR DELETE ON ledger_entries
  FOR EACH ROW EXECUTE FUNCTION ledger_entries_immutable();
CREATE TRIGGER ledger_entries_no_truncate BEFORE TRUNCATE ON ledger_entries
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_entries_immutable();

-- At commit, the wallet's head is the newest entry of its chain (the one
-- nobody follows), so balance = that entry's balance_after = sum of the ledger.
CREATE FUNCTION wallets_at_tail() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  head text;
BEGIN
  SELECT last_entry_id INTO head FROM wallets WHERE partner_id = NEW.partner_id;
  IF head IS NULL THEN
    IF EXISTS (SELECT 1 FROM ledger_entries WHERE partner_id = NEW.partner_id) THEN
      RAISE EXCEPTION 'wallet % has ledger entries but no head entry', NEW.partner_id USING ERRCODE = 'integrity_constraint_violation';
    END IF;
  ELSIF EXISTS (SELECT 1 FROM ledger_entries WHERE prev_entry_id = head) THEN
    RAISE EXCEPTION 'wallet % does not point at its newest ledger entry', NEW.partner_id USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER wallets_at_tail AFTER INSERT OR UPDATE ON wallets
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION wallets_at_tail();
CREATE CONSTRAINT TRIGGER ledger_entries_at_tail AFTER INSERT ON ledger_entries
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION wallets_at_tail();

-- An order's price, debited and held until the order is provisioned
-- (captured) or fails for good (released, with its refund entry).
CREATE TABLE reservations (
  order_id text PRIMARY KEY CHECK (char_length(order_id) BETWEEN 1 AND 64),
  partner_id text NOT NULL REFERENCES wallets (partner_id),
  amount bigint NOT NULL CHECK (amount > 0),
  state text NOT NULL CONSTRAINT reservations_state_check CHECK (state IN ('held', 'captured', 'released')),
  debit_entry_id text NOT NULL UNIQUE REFERENCES ledger_entries (id),
  refund_entry_id text UNIQUE REFERENCES ledger_entries (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  -- Released is exactly "refunded".
  CONSTRAINT reservations_refund_iff_released CHECK ((state = 'released') = (refund_entry_id IS NOT NULL))
);

-- Down Migration
DROP TABLE reservations;
ALTER TABLE wallets DROP CONSTRAINT wallets_balance_is_last_entry;
DROP TABLE ledger_entries;
DROP TABLE wallets;
DROP FUNCTION wallets_at_tail();
DROP FUNCTION ledger_entries_immutable();
DROP FUNCTION ledger_entries_number();
