-- Up Migration
-- One row per eSIM order placed at the SM-DP+ over ES2+ (contract §8). The
-- functionCallIdentifier of each call is chosen before the call is made and
-- kept here, so a retry of the same call (a crash, a lost answer, a
-- redelivery) sends the same one and the SM-DP+ can recognise it; the ICCID
-- DownloadOrder reserved is kept as soon as it is known, so an SM-DP+ that
-- died before ConfirmOrder is asked to confirm that profile, never a second.
-- The matching id is kept because ES2+ has no function to read it again:
-- GetProvisioning answers from here.
CREATE TABLE smdp_orders (
  order_id text PRIMARY KEY,
  profile_type text NOT NULL,
  download_call_id text NOT NULL,
  confirm_call_id text NOT NULL,
  cancel_call_id text NOT NULL,
  iccid text,
  matching_id text,
  smdp_address text,
  eid text,
  -- ordering → downloaded (ICCID reserved) → released (confirmed, releaseFlag true); cancelled.
  state text NOT NULL DEFAULT 'ordering' CHECK (state IN ('ordering', 'downloaded', 'released', 'cancelled')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX smdp_orders_iccid ON smdp_orders (iccid) WHERE iccid IS NOT NULL;

-- Every ES2+ HandleDownloadProgressInfo accepted (answered 204), keyed by the
-- caller's (functionRequesterIdentifier, functionCallIdentifier): the same
-- call twice is recorded, and applied, once.
CREATE TABLE es2_notifications (
  id text PRIMARY KEY,
  requester_id text NOT NULL,
  call_id text NOT NULL,
  iccid text NOT NULL,
  eid text,
  profile_type text NOT NULL,
  notification_point integer NOT NULL,
  status text NOT NULL,
  subject_code text,
  reason_code text,
  message text,
  occurred_at timestamptz NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (requester_id, call_id)
);
CREATE INDEX es2_notifications_received ON es2_notifications (received_at);

-- Down Migration
DROP TABLE es2_notifications;
DROP TABLE smdp_orders;
