import { deliveryStatuses } from '@esim/vocabulary';
import { useAction } from '../../shared/actions.js';
import type { Client } from '../../shared/api.js';
import { formatDateTime, humanize } from '../../shared/format.js';
import { href, navigate, pageOf, withParams, type Route } from '../../shared/router.js';
import { useTitle } from '../../shared/shell.js';
import { partnerOfAccount } from '../../shared/testMode.js';
import { ListModeFrame, listModeQuery, ListModeSwitch } from '../listMode.js';
import type { AdminWebhookDelivery, Page } from '../../shared/types.js';
import { Badge, DataTable, FilterSelect, Loaded, Pager, useResource } from '../../shared/ui.js';
import { useCan } from '../role.js';

const statusOptions: Array<[string, string]> = [['', 'All'], ...deliveryStatuses.map((s): [string, string] => [s, humanize(s)])];

/** Webhook deliveries of every partner, by partner and status, with redelivery (§9). */
export function DeliveriesPage({ api, route }: { api: Client; route: Route }) {
  useTitle('Webhook deliveries', 'Operator console');
  const status = route.query.get('status') ?? '';
  const partnerId = route.query.get('partnerId') ?? '';
  const endpointId = route.query.get('endpointId') ?? '';
  const page = pageOf(route);
  const livemode = route.query.get('livemode') ?? '';
  const deliveries = useResource(
    () => api.get<Page<AdminWebhookDelivery>>('/webhook-deliveries', { status, partnerId, endpointId, page, limit: 20, ...listModeQuery(route) }),
    [status, partnerId, endpointId, page, livemode],
  );
  const { run, pending, feedback } = useAction();
  const can = useCan();
  const retry = (delivery: AdminWebhookDelivery) =>
    run({
      confirm: `Redeliver ${delivery.eventType} (${delivery.eventId}) to partner ${delivery.partnerId} now? It becomes pending with one more attempt.`,
      confirmLabel: 'Retry now',
      action: () => api.post<AdminWebhookDelivery>(`/webhook-deliveries/${encodeURIComponent(delivery.id)}/retry`),
      done: (retried) => {
        deliveries.reload();
        return `Delivery ${retried.id} is ${retried.status}; next attempt ${formatDateTime(retried.nextAttemptAt)}.`;
      },
    });
  return (
    <>
      <h1>Webhook deliveries</h1>
      {feedback}
      <div class="toolbar">
        <FilterSelect id="deliveries-status" label="Status" value={status} options={statusOptions} onChange={(value) => navigate(withParams(route, { status: value }))} />
        {partnerId && (
          <span>
            Partner <a href={href('partners', partnerId)}>{partnerId}</a> (<a href={withParams(route, { partnerId: '' })}>all partners</a>)
          </span>
        )}
        <span class="spacer" />
        <ListModeSwitch route={route} />
        <button type="button" class="secondary" onClick={deliveries.reload}>
          Refresh
        </button>
      </div>
      <ListModeFrame route={route} what="deliveries">
        <Loaded resource={deliveries}>
          {(result) => (
            <>
              <DataTable
                caption="Webhook deliveries"
                rows={result.data}
                rowKey={(d) => d.id}
                empty="No deliveries match."
                columns={[
                  { label: 'Created', render: (d) => formatDateTime(d.createdAt) },
                  // Filtered by one partner, the column would repeat it on every row.
                  ...(partnerId ? [] : [{ label: 'Partner', render: (d: AdminWebhookDelivery) => <a href={withParams(route, { partnerId: partnerOfAccount(d.partnerId) })}>{d.partnerId}</a> }]),
                  { label: 'Event', render: (d) => (<><code>{d.eventType}</code><br /><small class="mono">{d.eventId}</small></>) },
                  { label: 'Endpoint', render: (d) => <small class="mono">{d.endpointId ?? '—'}</small> },
                  { label: 'Status', render: (d) => <Badge value={d.status} /> },
                  { label: 'Attempts', numeric: true, render: (d) => d.attempts },
                  { label: 'Last answer', render: (d) => [d.lastStatusCode ? `HTTP ${d.lastStatusCode}` : null, d.lastError].filter(Boolean).join(' · ') || '—' },
                  {
                    label: 'Action',
                    render: (d) =>
                      can('support') ? (
                        <button type="button" class="secondary" disabled={pending} onClick={() => void retry(d)} aria-label={`Retry delivery ${d.id}`}>
                          Retry
                        </button>
                      ) : (
                        '—'
                      ),
                  },
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
