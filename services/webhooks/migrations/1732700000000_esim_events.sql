-- Up Migration

-- Contract §13 adds four partner events.
ALTER TABLE events DROP CONSTRAINT events_type_check;
ALTER TABLE events ADD CONSTRAINT events_type_check CHECK (type IN (
  'payment.paid', 'provision.provisioned', 'provision.failed', 'wallet.credited', 'webhook.test',
  'esim.installed', 'esim.usage_threshold', 'esim.bundle_expired', 'order.cancelled'));

-- Down Migration
ALTER TABLE events DROP CONSTRAINT events_type_check;
ALTER TABLE events ADD CONSTRAINT events_type_check CHECK (type IN ('payment.paid', 'provision.provisioned', 'provision.failed', 'wallet.credited', 'webhook.test'));
