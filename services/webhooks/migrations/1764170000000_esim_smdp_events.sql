-- Up Migration

-- Contract §9 (issue #25): the SM-DP+'s esim.install_failed and esim.deleted,
-- and the partner's esim.suspended / esim.resumed. The list is every type of
-- §9's table, so this migration and another one that re-creates the
-- constraint for other §9 types (wallet.balance_low, webhook.endpoint_disabled)
-- agree whichever runs last.
ALTER TABLE events DROP CONSTRAINT events_type_check;
ALTER TABLE events ADD CONSTRAINT events_type_check CHECK (type IN (
  'payment.paid', 'provision.provisioned', 'provision.failed', 'wallet.credited', 'webhook.test',
  'esim.installed', 'esim.usage_threshold', 'esim.bundle_expired', 'order.cancelled',
  'esim.install_failed', 'esim.deleted', 'esim.suspended', 'esim.resumed',
  'wallet.balance_low', 'webhook.endpoint_disabled'));

-- Down Migration
ALTER TABLE events DROP CONSTRAINT events_type_check;
ALTER TABLE events ADD CONSTRAINT events_type_check CHECK (type IN (
  'payment.paid', 'provision.provisioned', 'provision.failed', 'wallet.credited', 'webhook.test',
  'esim.installed', 'esim.usage_threshold', 'esim.bundle_expired', 'order.cancelled'));
