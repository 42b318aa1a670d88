import { orderStatuses } from '@esim/vocabulary';
import type { Client } from '../../shared/api.js';
import { EsimState } from '../../shared/esim.js';
import { formatDateTime, humanize } from '../../shared/format.js';
import { formatMoney } from '../../shared/money.js';
import { href, navigate, pageOf, withParams, type Route } from '../../shared/router.js';
import { useTitle } from '../../shared/shell.js';
import { partnerOfAccount, TestBadge } from '../../shared/testMode.js';
import { ListModeFrame, listModeQuery, ListModeSwitch } from '../listMode.js';
import type { AdminEsim, AdminOrder, Livemode, Page } from '../../shared/types.js';
import { Badge, DataTable, FilterSelect, Loaded, Pager, useResource } from '../../shared/ui.js';

const statusOptions: Array<[string, string]> = [['', 'All'], ...orderStatuses.map((s): [string, string] => [s, humanize(s)])];

/** Orders of every partner, newest first, by partner and status (§10). */
export function OrdersPage({ api, route }: { api: Client; route: Route }) {
  useTitle('Orders', 'Operator console');
  const status = route.query.get('status') ?? '';
  const partnerId = route.query.get('partnerId') ?? '';
  const page = pageOf(route);
  const livemode = route.query.get('livemode') ?? '';
  const orders = useResource(() => api.get<Page<AdminOrder>>('/orders', { status, partnerId, page, limit: 20, ...listModeQuery(route) }), [status, partnerId, page, livemode]);
  return (
    <>
      <h1>Orders</h1>
      <div class="toolbar">
        <FilterSelect id="orders-status" label="Status" value={status} options={statusOptions} onChange={(value) => navigate(withParams(route, { status: value }))} />
        {partnerId && (
          <span>
            Partner <a href={href('partners', partnerId)}>{partnerId}</a> (<a href={withParams(route, { partnerId: '' })}>all partners</a>)
          </span>
        )}
        <span class="spacer" />
        <ListModeSwitch route={route} />
        <button type="button" class="secondary" onClick={orders.reload}>
          Refresh
        </button>
      </div>
      <ListModeFrame route={route} what="orders">
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
                  // Filtered by one partner, the column would repeat it on every row.
                  ...(partnerId ? [] : [{ label: 'Partner', render: (o: AdminOrder) => <a href={href('partners', partnerOfAccount(o.partnerId))}>{o.partnerId}</a> }]),
                  { label: 'Plan', render: (o) => o.planName },
                  { label: 'Kind', render: (o) => (o.kind === 'topup' ? 'Top-up' : 'New eSIM') },
                  { label: 'Status', render: (o) => <Badge value={o.status} /> },
                  { label: 'Price', numeric: true, render: (o) => formatMoney(o.price, o.currency) },
                ]}
              />
              <Pager pagination={result.pagination} route={route} />
            </>
          )}
        </Loaded>
      </ListModeFrame>
    </>
  );
}

/** One order of any partner, with the supplier's reference and the eSIM details. */
export function OrderDetailPage({ api, orderId }: { api: Client; orderId: string }) {
  useTitle(`Order ${orderId}`, 'Operator console');
  const order = useResource(() => api.get<AdminOrder>(`/orders/${encodeURIComponent(orderId)}`), [orderId]);
  return (
    <>
      <p>
        <a href="#/orders">← All orders</a>
      </p>
      <h1>Order {orderId}</h1>
      <Loaded resource={order}>
        {(o) => (
          <>
            <section class="card" aria-labelledby="order-title">
              <h2 id="order-title">
                {o.planName} <Badge value={o.status} /> <TestBadge livemode={(o as AdminOrder & Livemode).livemode} />
              </h2>
              <dl class="facts">
                <dt>Kind</dt>
                <dd>{o.kind === 'topup' ? 'Top-up of an existing eSIM' : 'New eSIM'}</dd>
                <dt>Partner</dt>
                <dd>
                  <a href={href('partners', partnerOfAccount(o.partnerId))}>{o.partnerId}</a>
                </dd>
                <dt>Price</dt>
                <dd>{formatMoney(o.price, o.currency)}</dd>
                <dt>Plan</dt>
                <dd>
                  <a href={href('plans', o.planId)}>{o.planId}</a>
                </dd>
                <dt>Customer</dt>
                <dd>
                  {o.email} · {o.phoneNumber}
                </dd>
                <dt>Partner's reference</dt>
                <dd>
                  <code>{o.clientRequestId}</code>
                </dd>
                <dt>Supplier reference</dt>
                <dd>{o.supplierReference ? <code>{o.supplierReference}</code> : '—'}</dd>
                <dt>Placed</dt>
                <dd>{formatDateTime(o.createdAt)}</dd>
                <dt>Updated</dt>
                <dd>{formatDateTime(o.updatedAt)}</dd>
                {o.failureReason && (
                  <>
                    <dt>Failure</dt>
                    <dd>{o.failureReason}</dd>
                  </>
                )}
                {o.esim && (
                  <>
                    <dt>ICCID</dt>
                    <dd>
                      <code>{o.esim.iccid}</code>
                    </dd>
                    <dt>Activation code</dt>
                    <dd>
                      <code>{o.esim.activationCode}</code>
                    </dd>
                  </>
                )}
              </dl>
            </section>
            {(o.iccid ?? o.esim?.iccid) && o.status !== 'failed' && <OrderEsim api={api} iccid={(o.iccid ?? o.esim?.iccid)!} updatedAt={o.updatedAt} />}
          </>
        )}
      </Loaded>
    </>
  );
}

/** The order's eSIM as its partner sees it (§13): status, use and bundles, read-only. */
function OrderEsim({ api, iccid, updatedAt }: { api: Client; iccid: string; updatedAt: string }) {
  const esim = useResource(() => api.get<AdminEsim>(`/esims/${encodeURIComponent(iccid)}`), [iccid, updatedAt]);
  return (
    <Loaded resource={esim}>
      {(e) => (
        <EsimState esim={e} orderHref={(id) => href('orders', id)}>
          <div class="toolbar">
            <button type="button" class="secondary" onClick={esim.reload}>
              Refresh use
            </button>
          </div>
        </EsimState>
      )}
    </Loaded>
  );
}
