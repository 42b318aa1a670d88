import { useState } from 'preact/hooks';
import { useAction } from '../../shared/actions.js';
import type { Client } from '../../shared/api.js';
import { formatDateTime, humanize } from '../../shared/format.js';
import { formatMoney } from '../../shared/money.js';
import { href, pageOf, type Route } from '../../shared/router.js';
import { useTitle } from '../../shared/shell.js';
import type { LedgerEntry, Page, Partner, Wallet } from '../../shared/types.js';
import { DataTable, Loaded, Pager, TextField, useResource } from '../../shared/ui.js';
import { useMode } from '../modeContext.js';

/** The prepaid balance and the whole ledger, paged, newest first (§6). */
export function WalletPage({ api, route }: { api: Client; route: Route }) {
  useTitle('Wallet', 'Partner portal');
  const mode = useMode();
  const page = pageOf(route);
  const wallet = useResource(() => api.get<Wallet>('/partner/me/wallet'), []);
  const ledger = useResource(() => api.get<Page<LedgerEntry>>('/partner/me/wallet/ledger', { page, limit: 20 }), [page]);
  const currency = wallet.data?.currency;
  return (
    <>
      <h1>{mode === 'test' ? 'Test wallet' : 'Wallet'}</h1>
      <section class="card" aria-labelledby="balance-title">
        <h2 id="balance-title">Balance</h2>
        <Loaded resource={wallet}>{(w) => <p class="big" data-testid="wallet-balance">{formatMoney(w.balance, w.currency)}</p>}</Loaded>
        {mode === 'test' ? (
          <p class="muted">
            Test orders are paid from this test balance. Credit it on the <a href="#/test">Test tools</a> page.
          </p>
        ) : (
          <p class="muted">Orders are paid from this balance. Top-ups arrive by bank transfer and are credited by our team.</p>
        )}
      </section>
      {mode === 'live' && <LowBalance api={api} />}
      <h2>Ledger</h2>
      <Loaded resource={ledger}>
        {(result) =>
          currency && (
            <>
              <DataTable
                caption="Ledger entries"
                rows={result.data}
                rowKey={(e) => e.id}
                empty="No entries yet."
                columns={[
                  { label: 'Date', render: (e) => formatDateTime(e.createdAt) },
                  { label: 'Type', render: (e) => humanize(e.type) },
                  {
                    label: 'Description',
                    render: (e) => (
                      <>
                        {e.description ?? (e.reference ? `Bank transfer ${e.reference}` : '—')}
                        {e.orderId && (
                          <>
                            {' '}
                            (<a href={href('orders', e.orderId)}>order</a>)
                          </>
                        )}
                      </>
                    ),
                  },
                  { label: 'Amount', numeric: true, render: (e) => formatMoney(e.amount, currency) },
                  { label: 'Balance after', numeric: true, render: (e) => formatMoney(e.balanceAfter, currency) },
                ]}
              />
              <Pager pagination={result.pagination} route={route} />
            </>
          )
        }
      </Loaded>
    </>
  );
}

/** §9 `lowBalanceThreshold`: a `wallet.balance_low` webhook when a debit takes the balance below it, once per crossing. */
function LowBalance({ api }: { api: Client }) {
  const me = useResource(() => api.get<Partner & { lowBalanceThreshold?: number | null }>('/partner/me'), []);
  const [value, setValue] = useState<string | undefined>();
  const { run, pending, feedback } = useAction();
  const current = me.data?.lowBalanceThreshold ?? null;
  const shown = value ?? (current === null ? '' : String(current));
  const save = (threshold: number | null) =>
    run({
      action: () => api.patch<{ lowBalanceThreshold?: number | null }>('/partner/me', { lowBalanceThreshold: threshold }),
      done: (answer) => {
        me.reload();
        setValue(undefined);
        return answer.lowBalanceThreshold === null || answer.lowBalanceThreshold === undefined
          ? 'Low-balance warning turned off.'
          : `You will get a wallet.balance_low webhook when a debit takes your balance below ${answer.lowBalanceThreshold} (minor units).`;
      },
    });
  return (
    <section class="card" aria-labelledby="low-balance-title">
      <h2 id="low-balance-title">Low-balance warning</h2>
      <p class="muted">When an order takes your balance below this amount (in minor units, e.g. cents), we send one wallet.balance_low webhook, and again only after a top-up lifts it back.</p>
      {feedback}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void save(shown.trim() === '' ? null : Number(shown));
        }}
      >
        <TextField id="low-balance-threshold" label="Threshold (minor units)" type="number" min="0" step="1" value={shown} onInput={setValue} />
        <div class="actions">
          <button type="submit" disabled={pending}>
            Save threshold
          </button>
          {current !== null && (
            <button type="button" class="secondary" disabled={pending} onClick={() => void save(null)}>
              Turn off
            </button>
          )}
        </div>
      </form>
    </section>
  );
}
