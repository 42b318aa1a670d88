import { formatData } from '../../shared/format.js';
import type { Esim, Order } from '../../shared/types.js';
import { keyVariableOf } from '../mode.js';
import { useMode } from '../modeContext.js';
import { ApiCall, curlPost } from '../apiCall.js';

export type RuleState = 'pass' | 'fail' | 'api';

export interface CancelRule {
  rule: string;
  state: RuleState;
  /** What the API checks that the portal cannot see. */
  note?: string;
  /** Why it fails, as the end of "This order cannot be cancelled: …". */
  failure?: string;
}

/**
 * The §13 cancellation rules as far as the portal can see them. The
 * platform checks them again under the order's lock when the call comes;
 * the window is its configuration (ORDER_CANCEL_WINDOW) and a top-up still
 * being provisioned has no bundle yet, so those are left to the API.
 */
export function cancelRules(order: Order, esim: Esim | undefined): CancelRule[] {
  const rules: CancelRule[] = [];
  const provisioned = order.status === 'provisioned';
  rules.push({
    rule: 'The order is provisioned',
    state: provisioned ? 'pass' : 'fail',
    failure: provisioned ? undefined : order.status === 'failed' ? 'it failed, and its price was already refunded' : `it is still ${order.status}`,
  });
  const bundle = esim?.bundles.find((b) => b.orderId === order.id);
  if (bundle) {
    rules.push({
      rule: 'Its bundle has no use',
      state: bundle.dataUsedMb === 0 ? 'pass' : 'fail',
      failure: bundle.dataUsedMb === 0 ? undefined : `its bundle was used (${formatData(bundle.dataUsedMb)})`,
    });
  }
  rules.push({ rule: 'Within the cancellation window after provisioning', state: 'api', note: '30 days unless the platform is configured otherwise' });
  if (order.kind === 'esim' && esim) {
    rules.push({
      rule: 'The eSIM is not installed on a device',
      state: esim.status === 'installed' ? 'fail' : 'pass',
      failure: esim.status === 'installed' ? 'the eSIM is installed on a device' : undefined,
    });
    const topUps = esim.bundles.filter((b) => b.orderId !== order.id && b.status !== 'cancelled');
    rules.push({
      rule: 'The eSIM has no top-up that is not cancelled',
      state: topUps.length === 0 ? 'pass' : 'fail',
      note: topUps.length === 0 ? 'one still being provisioned is checked by the API' : undefined,
      failure: topUps.length === 0 ? undefined : `the eSIM has ${topUps.length === 1 ? 'a top-up' : `${topUps.length} top-ups`} (cancel ${topUps.length === 1 ? 'it' : 'them'} first)`,
    });
  }
  return rules;
}

const stateText: Record<RuleState, { text: string; tone: string }> = {
  pass: { text: 'Passes', tone: 'ok' },
  fail: { text: 'Fails', tone: 'bad' },
  api: { text: 'Checked by the API', tone: 'muted' },
};

/** "Cancel and refund": which rules this order meets, and the API call that cancels it (an API key with orders:write). */
export function CancelPanel({ order, esim }: { order: Order; esim: Esim | undefined }) {
  const mode = useMode();
  if (order.status === 'cancelled') {
    return (
      <section class="card" aria-labelledby="cancel-title">
        <h2 id="cancel-title">Cancel and refund</h2>
        <p data-testid="cancel-verdict">This order was cancelled: its full price was refunded to your wallet and its bundle revoked at the supplier.</p>
      </section>
    );
  }
  const rules = cancelRules(order, esim);
  const failing = rules.filter((r) => r.state === 'fail');
  return (
    <section class="card" aria-labelledby="cancel-title">
      <h2 id="cancel-title">Cancel and refund</h2>
      <p>An order that was never used can be cancelled; its full price goes back to your wallet. These are the rules:</p>
      <ul class="rules" aria-label="Cancellation rules">
        {rules.map((r) => (
          <li key={r.rule}>
            <span class={`badge badge-${stateText[r.state].tone}`}>{stateText[r.state].text}</span>
            <span>
              {r.rule}
              {r.note && <span class="muted"> ({r.note})</span>}
            </span>
          </li>
        ))}
      </ul>
      {failing.length > 0 ? (
        <p data-testid="cancel-verdict">This order cannot be cancelled: {failing.map((r) => r.failure).join('; ')}.</p>
      ) : (
        <>
          <p data-testid="cancel-verdict">
            This order can be cancelled. Cancelling is an API call with a key that has the <code>orders:write</code> scope:
          </p>
          <ApiCall id="cancel-call" label="Cancel call" command={curlPost(`/partner/orders/${encodeURIComponent(order.id)}/cancel`, undefined, keyVariableOf(mode))} />
        </>
      )}
    </section>
  );
}
