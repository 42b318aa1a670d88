-- Up Migration

-- Contract §9 (issue #25): the SM-DP+'s esim.install_failed and esim.deleted,
-- and the partner's esim.suspended / esim.resumed. The list is exactly the
-- vocabulary's partnerEventTypes (test/schema.test.ts holds them together).
ALTER TABLE events DROP CONSTRAINT events_type_check;
ALTER TABLE events ADD CONSTRAINT events_type_check CHECK (type IN (
  'payment.paid', 'provision.provisioned', 'provision.failed', 'wallet.credited', 'webhook.test',
  'esim.installed', 'esim.usage_threshold', 'esim.bundle_expired', 'order.cancelled',
  'wallet.balance_low', 'webhook.endpoint_disabled',
  'esim.install_failed', 'esim.deleted', 'esim.suspended', 'esim.resumed'));

-- Down Migration
ALTER TABLE events DROP CONSTRAINT events_type_check;
ALTER TABLE events ADD CONSTRAINT events_type_check CHECK (type IN (
  'payment.paid', 'provision.provisioned', 'provision.failed', 'wallet.credited', 'webhook.test',
  'esim.installed', 'esim.usage_threshold', 'esim.bundle_expired', 'order.cancelled',
  'wallet.balance_low', 'webhook.endpoint_disabled'));
