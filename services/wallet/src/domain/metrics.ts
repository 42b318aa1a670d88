import { livemodeOf } from '@esim/ids';
import { metrics } from '@esim/telemetry';

const meter = metrics.getMeter('wallet');

/** The business counters an SRE pages on (contract §12); replays and no-ops are not counted. */
export const walletMetrics = {
  debits: meter.createCounter('wallet_debits_total', { description: 'Order debits recorded' }),
  debitedMinor: meter.createCounter('wallet_debited_minor_total', { description: 'Money debited for orders, in minor units' }),
  refunds: meter.createCounter('wallet_refunds_total', { description: 'Refunds of failed or cancelled orders recorded' }),
  refundedMinor: meter.createCounter('wallet_refunded_minor_total', { description: 'Money refunded for failed or cancelled orders, in minor units' }),
  /** Test-mode credits (contract §14), counted apart: no test amount ever joins a live counter. */
  testCredits: meter.createCounter('wallet_test_credits_total', { description: 'Test wallet credits (test mode, no real money)' }),
  topUps: meter.createCounter('wallet_topups_total', { description: 'Operator top-ups credited' }),
  adjustments: meter.createCounter('wallet_adjustments_total', { description: 'Operator adjustments recorded' }),
  reservesPastDeadline: meter.createCounter('wallet_reserves_past_deadline_total', { description: 'Order debits refused because their deadline passed before they could commit (#23)' }),
};

/**
 * The `livemode` label of the money counters (contract §14): test debits and
 * refunds are counted apart, so no test amount joins a live total.
 */
export function modeOf(accountId: string): { livemode: 'true' | 'false' } {
  return { livemode: livemodeOf(accountId) ? 'true' : 'false' };
}
