-- Up Migration
-- #29, no query walks history: the reconciliation asks for reservations still held after an hour, oldest first
-- (heldReservationsOlderThan). Without an index it read every reservation ever made (one per order). This one
-- holds only held reservations: an order's is in it for the seconds between debit and capture.
CREATE INDEX reservations_held ON reservations (created_at, order_id) WHERE state = 'held';

-- Down Migration
DROP INDEX reservations_held;
