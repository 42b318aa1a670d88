-- Up Migration
-- The chain key and the wallet's head key look an entry up by its id alone.
-- Keyed (partner_id, id, balance_after), their foreign-key checks could be
-- planned on the (partner_id, seq) index, and were, on a table not analyzed
-- yet: every check then walked the partner's whole chain (issue #14, ~700
-- rows read per Reserve, growing with the ledger). Led by id, no index but
-- the entry's own can answer them. The partner part of both keys moves into
-- the triggers that already read the entry: an entry still follows only an
-- entry of its own partner, a wallet's head is still one of its own entries.
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_chain;
ALTER TABLE wallets DROP CONSTRAINT wallets_balance_is_last_entry;
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_chain_target;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_chain_target UNIQUE (id, balance_after);
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_chain FOREIGN KEY (prev_entry_id, balance_before)
  REFERENCES ledger_entries (id, balance_after);
ALTER TABLE wallets ADD CONSTRAINT wallets_balance_is_last_entry
  FOREIGN KEY (last_entry_id, balance) REFERENCES ledger_entries (id, balance_after)
  DEFERRABLE INITIALLY DEFERRED;

CREATE OR REPLACE FUNCTION ledger_entries_number() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  prev_partner text;
  prev_seq bigint;
BEGIN
  SELECT partner_id, seq INTO prev_partner, prev_seq FROM ledger_entries WHERE id = NEW.prev_entry_id;
  IF FOUND AND prev_partner <> NEW.partner_id THEN
    RAISE EXCEPTION 'ledger entry % follows entry % of another partner', NEW.id, NEW.prev_entry_id
      USING ERRCODE = 'foreign_key_violation', CONSTRAINT = 'ledger_entries_chain';
  END IF;
  NEW.seq := COALESCE(prev_seq + 1, 1);
  RETURN NEW;
END $$;

CREATE OR REPLACE FUNCTION wallets_at_tail() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  head text;
BEGIN
  SELECT last_entry_id INTO head FROM wallets WHERE partner_id = NEW.partner_id;
  IF head IS NULL THEN
    IF EXISTS (SELECT 1 FROM ledger_entries WHERE partner_id = NEW.partner_id) THEN
      RAISE EXCEPTION 'wallet % has ledger entries but no head entry', NEW.partner_id USING ERRCODE = 'integrity_constraint_violation';
    END IF;
  ELSIF EXISTS (SELECT 1 FROM ledger_entries WHERE id = head AND partner_id <> NEW.partner_id) THEN
    RAISE EXCEPTION 'wallet % points at another partner''s ledger entry', NEW.partner_id
      USING ERRCODE = 'foreign_key_violation', CONSTRAINT = 'wallets_balance_is_last_entry';
  ELSIF EXISTS (SELECT 1 FROM ledger_entries WHERE prev_entry_id = head) THEN
    RAISE EXCEPTION 'wallet % does not point at its newest ledger entry', NEW.partner_id USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NULL;
END $$;

-- An append-only table grows without dead rows, so autovacuum's default
-- (analyze after 10 % of the table changed) lets its statistics lag further
-- behind the bigger it gets; the money tables are analyzed after every few
-- hundred new rows instead.
ALTER TABLE ledger_entries SET (autovacuum_analyze_scale_factor = 0, autovacuum_analyze_threshold = 500);
ALTER TABLE reservations SET (autovacuum_analyze_scale_factor = 0, autovacuum_analyze_threshold = 500);

-- Down Migration
ALTER TABLE reservations RESET (autovacuum_analyze_scale_factor, autovacuum_analyze_threshold);
ALTER TABLE ledger_entries RESET (autovacuum_analyze_scale_factor, autovacuum_analyze_threshold);
ALTER TABLE wallets DROP CONSTRAINT wallets_balance_is_last_entry;
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_chain;
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_chain_target;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_chain_target UNIQUE (partner_id, id, balance_after);
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_chain FOREIGN KEY (partner_id, prev_entry_id, balance_before)
  REFERENCES ledger_entries (partner_id, id, balance_after);
ALTER TABLE wallets ADD CONSTRAINT wallets_balance_is_last_entry
  FOREIGN KEY (partner_id, last_entry_id, balance) REFERENCES ledger_entries (partner_id, id, balance_after)
  DEFERRABLE INITIALLY DEFERRED;
CREATE OR REPLACE FUNCTION ledger_entries_number() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  NEW.seq := COALESCE((SELECT seq + 1 FROM ledger_entries WHERE id = NEW.prev_entry_id), 1);
  RETURN NEW;
END $$;
CREATE OR REPLACE FUNCTION wallets_at_tail() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
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
