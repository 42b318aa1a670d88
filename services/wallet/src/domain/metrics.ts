import { metrics } from '@esim/telemetry';

const meter = metrics.getMeter('wallet');

/** The business counters an SRE pages on (contract §12); replays and no-ops are not counted. */
export const walletMetrics = {
  debits: meter.createCounter('wallet_debits_total', { description: 'Order debits recorded' }),
  debitedMinor: meter.createCounter('wallet_debited_minor_total', { description: 'Money debited for orders, in minor units' }),
  refunds: meter.createCounter('wallet_refunds_total', { description: 'Refunds of failed or cancelled orders recorded' }),
  refundedMinor: meter.createCounter('wallet_refunded_minor_total', { description: 'Money refunded for failed or cancelled orders, in minor units' }),
  topUps: meter.createCounter('wallet_topups_total', { description: 'Operator top-ups credited' }),
  adjustments: meter.createCounter('wallet_adjustments_total', { description: 'Operator adjustments recorded' }),
  reservesPastDeadline: meter.createCounter('wallet_reserves_past_deadline_total', { description: 'Order debits refused because their deadline passed before they could commit (#23)' }),
};
