import { orderStatuses } from '@esim/vocabulary';
import type { Client } from '../../shared/api.js';
import { formatDateTime, humanize } from '../../shared/format.js';
import { formatMoney } from '../../shared/money.js';
import { href, navigate, pageOf, withParams, type Route } from '../../shared/router.js';
import { useTitle } from '../../shared/shell.js';
import type { Order, Page } from '../../shared/types.js';
import { Badge, DataTable, FilterSelect, Loaded, Pager, useResource } from '../../shared/ui.js';

const statusOptions: Array<[string, string]> = [['', 'All'], ...orderStatuses.map((s): [string, string] => [s, humanize(s)])];

/** The partner's orders, newest first, with a status filter (§7). */
export function OrdersPage({ api, route }: { api: Client; route: Route }) {
  useTitle('Orders', 'Partner portal');
  const status = route.query.get('status') ?? '';
  const page = pageOf(route);
  const orders = useResource(() => api.get<Page<Order>>('/partner/me/orders', { status, page, limit: 20 }), [status, page]);
  return (
    <>
      <h1>Orders</h1>
      <p class="muted">Orders are placed through the API with your key; each one's eSIM appears here once provisioned.</p>
      <div class="toolbar">
        <FilterSelect id="orders-status" label="Status" value={status} options={statusOptions} onChange={(value) => navigate(withParams(route, { status: value }))} />
        <span class="spacer" />
        <button type="button" class="secondary" onClick={orders.reload}>
          Refresh
        </button>
      </div>
      <Loaded resource={orders}>
        {(result) => (
          <>
            <DataTable
              caption="Orders"
              rows={result.data}
              rowKey={(o) => o.id}
              empty="No orders."
              columns={[
                { label: 'Order', render: (o) => <a href={href('orders', o.id)}>{o.id}</a> },
                { label: 'Placed', render: (o) => formatDateTime(o.createdAt) },
                { label: 'Plan', render: (o) => o.planName },
                { label: 'Kind', render: (o) => (o.kind === 'topup' ? 'Top-up' : 'New eSIM') },
                { label: 'Customer', render: (o) => o.email },
                { label: 'Status', render: (o) => <Badge value={o.status} /> },
                { label: 'Price', numeric: true, render: (o) => formatMoney(o.price, o.currency) },
              ]}
            />
            <Pager pagination={result.pagination} route={route} />
          </>
        )}
      </Loaded>
    </>
  );
}
