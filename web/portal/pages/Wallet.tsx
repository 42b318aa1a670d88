import type { Client } from '../../shared/api.js';
import { formatDateTime, humanize } from '../../shared/format.js';
import { formatMoney } from '../../shared/money.js';
import { href, pageOf, type Route } from '../../shared/router.js';
import { useTitle } from '../../shared/shell.js';
import type { LedgerEntry, Page, Wallet } from '../../shared/types.js';
import { DataTable, Loaded, Pager, useResource } from '../../shared/ui.js';

/** The prepaid balance and the whole ledger, paged, newest first (§6). */
export function WalletPage({ api, route }: { api: Client; route: Route }) {
  useTitle('Wallet', 'Partner portal');
  const page = pageOf(route);
  const wallet = useResource(() => api.get<Wallet>('/partner/me/wallet'), []);
  const ledger = useResource(() => api.get<Page<LedgerEntry>>('/partner/me/wallet/ledger', { page, limit: 20 }), [page]);
  const currency = wallet.data?.currency;
  return (
    <>
      <h1>Wallet</h1>
      <section class="card" aria-labelledby="balance-title">
        <h2 id="balance-title">Balance</h2>
        <Loaded resource={wallet}>{(w) => <p class="big" data-testid="wallet-balance">{formatMoney(w.balance, w.currency)}</p>}</Loaded>
        <p class="muted">Orders are paid from this balance. Top-ups arrive by bank transfer and are credited by our team.</p>
      </section>
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
