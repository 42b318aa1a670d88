import { useMemo, useState } from 'preact/hooks';
import type { Client } from '../../shared/api.js';
import { coverage } from '../../shared/esim.js';
import { formatAllowance } from '../../shared/format.js';
import { formatMoney } from '../../shared/money.js';
import type { Esim, Order, Page, Plan } from '../../shared/types.js';
import { DataTable, Loaded, useResource } from '../../shared/ui.js';
import { keyVariableOf } from '../mode.js';
import { useMode } from '../modeContext.js';
import { ApiCall, curlPost, newClientRequestId } from '../apiCall.js';

/**
 * "Top up": the plans that can add data to this eSIM (those covering every
 * country of its first plan, §13) and the order call for the chosen one.
 * Ordering stays an API-key call, so the portal shows the call, not a button.
 */
export function TopUpPanel({ api, esim, order }: { api: Client; esim: Esim; order: Order }) {
  return (
    <section class="card" aria-labelledby="topup-title">
      <h2 id="topup-title">Top up</h2>
      {esim.status === 'cancelled' ? (
        <p data-testid="topup-state">This eSIM was cancelled: it cannot be topped up.</p>
      ) : (
        <TopUpPlans api={api} esim={esim} order={order} />
      )}
    </section>
  );
}

function TopUpPlans({ api, esim, order }: { api: Client; esim: Esim; order: Order }) {
  const keyVariable = keyVariableOf(useMode());
  const plans = useResource(() => api.get<Page<Plan>>('/partner/me/catalog', { iccid: esim.iccid, limit: 100 }), [esim.iccid]);
  const [chosen, setChosen] = useState<string | undefined>();
  // One idempotency key per visit: running the copied call twice still adds one bundle.
  const clientRequestId = useMemo(() => newClientRequestId('topup'), []);
  return (
    <>
      <p data-testid="topup-state">
        More data on the same eSIM ({coverage(esim)}): nothing new to install. These plans cover every country of its first plan; the new bundle starts when the current
        ones end.
      </p>
      <Loaded resource={plans}>
        {(result) => {
          const plan = result.data.find((p) => p.id === chosen) ?? result.data[0];
          return (
            <>
              <DataTable
                caption="Top-up plans"
                rows={result.data}
                rowKey={(p) => p.id}
                empty="No active plan covers every country of this eSIM."
                columns={[
                  { label: 'Plan', render: (p) => p.name },
                  { label: 'Data', render: (p) => formatAllowance(p) },
                  { label: 'Validity', render: (p) => `${p.validityDays} days` },
                  { label: 'Your price', numeric: true, render: (p) => formatMoney(p.wholesalePrice, p.currency) },
                  {
                    label: 'API call',
                    render: (p) => (
                      <button type="button" class="secondary" aria-pressed={p.id === plan?.id} onClick={() => setChosen(p.id)}>
                        Show call
                        <span class="visually-hidden"> for {p.name}</span>
                      </button>
                    ),
                  },
                ]}
              />
              {plan && (
                <>
                  <h3>
                    Order {plan.name} on this eSIM
                  </h3>
                  <p>
                    Orders are placed with an API key that has the <code>orders:write</code> scope ({formatMoney(plan.wholesalePrice, plan.currency)} from your wallet):
                  </p>
                  <ApiCall
                    id="topup-call"
                    label="Top-up call"
                    command={curlPost('/partner/orders', { clientRequestId, planId: plan.id, iccid: esim.iccid, email: order.email, phoneNumber: order.phoneNumber }, keyVariable)}
                  />
                </>
              )}
            </>
          );
        }}
      </Loaded>
    </>
  );
}
