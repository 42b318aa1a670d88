-- Up Migration
-- Contract §8, §13: the SM-DP+ reports the device's EID, failed downloads or
-- installations (lastError) and the profile's deletion; the partner can
-- suspend an eSIM's data.
ALTER TABLE esims
  ADD COLUMN eid text,
  -- { at, notificationPoint, reasonCode, message } of the last failure the SM-DP+ reported, or null.
  ADD COLUMN last_error jsonb,
  ADD COLUMN suspended boolean NOT NULL DEFAULT false,
  ADD COLUMN deleted_at timestamptz;
ALTER TABLE esims DROP CONSTRAINT esims_status_check;
ALTER TABLE esims ADD CONSTRAINT esims_status_check CHECK (status IN ('released', 'installed', 'cancelled', 'deleted'));

-- The SM-DP+'s reports join the provider's in one table, so one eSIM's
-- reports apply in order and an early one waits for its eSIM the same way.
ALTER TABLE supplier_notifications
  ADD COLUMN eid text,
  ADD COLUMN notification_point integer,
  ADD COLUMN reason_code text,
  ADD COLUMN message text;
ALTER TABLE supplier_notifications DROP CONSTRAINT supplier_notifications_type_check;
ALTER TABLE supplier_notifications ADD CONSTRAINT supplier_notifications_type_check
  CHECK (type IN ('esim.installed', 'bundle.usage', 'bundle.expired', 'esim.install_failed', 'esim.deleted', 'esim.progress'));
ALTER TABLE supplier_notifications DROP CONSTRAINT supplier_notifications_shape;
ALTER TABLE supplier_notifications ADD CONSTRAINT supplier_notifications_shape CHECK (
  (type IN ('esim.installed', 'esim.deleted', 'esim.progress'))
  OR (type = 'esim.install_failed' AND notification_point IS NOT NULL)
  OR (type = 'bundle.usage' AND reference IS NOT NULL AND data_used_mb IS NOT NULL)
  OR (type = 'bundle.expired' AND reference IS NOT NULL)
);

-- Down Migration
DELETE FROM supplier_notifications WHERE type IN ('esim.install_failed', 'esim.deleted', 'esim.progress');
ALTER TABLE supplier_notifications DROP CONSTRAINT supplier_notifications_shape;
ALTER TABLE supplier_notifications ADD CONSTRAINT supplier_notifications_shape CHECK (
  (type = 'esim.installed')
  OR (type = 'bundle.usage' AND reference IS NOT NULL AND data_used_mb IS NOT NULL)
  OR (type = 'bundle.expired' AND reference IS NOT NULL)
);
ALTER TABLE supplier_notifications DROP CONSTRAINT supplier_notifications_type_check;
ALTER TABLE supplier_notifications ADD CONSTRAINT supplier_notifications_type_check CHECK (type IN ('esim.installed', 'bundle.usage', 'bundle.expired'));
ALTER TABLE supplier_notifications DROP COLUMN message, DROP COLUMN reason_code, DROP COLUMN notification_point, DROP COLUMN eid;
UPDATE esims SET status = 'installed' WHERE status = 'deleted';
ALTER TABLE esims DROP CONSTRAINT esims_status_check;
ALTER TABLE esims ADD CONSTRAINT esims_status_check CHECK (status IN ('released', 'installed', 'cancelled'));
ALTER TABLE esims DROP COLUMN deleted_at, DROP COLUMN suspended, DROP COLUMN last_error, DROP COLUMN eid;
