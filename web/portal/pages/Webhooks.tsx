import { deliveryStatuses } from '@esim/vocabulary';
import { useAction } from '../../shared/actions.js';
import type { Client } from '../../shared/api.js';
import { formatDateTime, humanize } from '../../shared/format.js';
import { navigate, pageOf, withParams, type Route } from '../../shared/router.js';
import { useTitle } from '../../shared/shell.js';
import type { Page, WebhookDelivery } from '../../shared/types.js';
import { Badge, DataTable, FilterSelect, Loaded, Pager, useResource } from '../../shared/ui.js';
import { WebhookEndpoints } from '../../shared/webhookEndpoints.js';
import { useMode } from '../modeContext.js';

const statusOptions: Array<[string, string]> = [['', 'All'], ...deliveryStatuses.map((s): [string, string] => [s, humanize(s)])];

/** The partner's own delivery log and the test event (§9). */
export function WebhooksPage({ api, route }: { api: Client; route: Route }) {
  useTitle('Webhooks', 'Partner portal');
  const mode = useMode();
  const status = route.query.get('status') ?? '';
  const endpointId = route.query.get('endpointId') ?? '';
  const page = pageOf(route);
  const deliveries = useResource(() => api.get<Page<WebhookDelivery>>('/partner/me/webhook-deliveries', { status, endpointId, page, limit: 20 }), [status, endpointId, page]);
  const { run, pending, feedback } = useAction();
  const sendTest = () =>
    run({
      action: () => api.post<{ eventId: string }>('/partner/me/webhook/test'),
      done: ({ eventId }) => {
        deliveries.reload();
        return `Test event ${eventId} queued: it is signed and delivered like every event, and listed below.`;
      },
    });
  return (
    <>
      <h1>Webhook deliveries</h1>
      <WebhookEndpoints
        api={api}
        base="/partner/me/webhook-endpoints"
        // A test endpoint belongs to the test account (§14): it receives test events only.
        createFields={mode === 'test' ? { livemode: false } : undefined}
        onShowDeliveries={(id) => navigate(withParams(route, { endpointId: id, page: '1' }))} />
      <h2>Deliveries{endpointId && <> to <code>{endpointId}</code> (<a href={withParams(route, { endpointId: '' })}>all endpoints</a>)</>}</h2>
      <p class="muted">
        {mode === 'test' ? (
          <>Every test event we sent, or tried to send, to your test endpoints (your test webhook URL is set on the <a href="#/test">Test tools</a> page). Failed attempts are retried on a schedule.</>
        ) : (
          <>Every event we sent, or tried to send, to each of your endpoints (your webhook URL is set on the <a href="#/account">Account</a> page). Failed attempts are retried on a schedule.</>
        )}
      </p>
      {feedback}
      <div class="toolbar">
        {/* In test mode the client asks with livemode=false: a test-mode webhook.test, to the test endpoints. */}
        <button type="button" onClick={sendTest} disabled={pending}>
          Send test event
        </button>
        <FilterSelect id="deliveries-status" label="Status" value={status} options={statusOptions} onChange={(value) => navigate(withParams(route, { status: value }))} />
        <span class="spacer" />
        <button type="button" class="secondary" onClick={deliveries.reload}>
          Refresh
        </button>
      </div>
      <Loaded resource={deliveries}>
        {(result) => (
          <>
            <DataTable
              caption="Webhook deliveries"
              rows={result.data}
              rowKey={(d) => d.id}
              empty="No deliveries yet."
              columns={[
                { label: 'Created', render: (d) => formatDateTime(d.createdAt) },
                { label: 'Event', render: (d) => (<><code>{d.eventType}</code><br /><small class="mono">{d.eventId}</small></>) },
                { label: 'Endpoint', render: (d) => <small class="mono">{d.endpointId ?? '—'}</small> },
                { label: 'Status', render: (d) => <Badge value={d.status} /> },
                { label: 'Attempts', numeric: true, render: (d) => d.attempts },
                { label: 'Last answer', render: (d) => (d.lastStatusCode ? `HTTP ${d.lastStatusCode}` : d.lastError ?? '—') },
                { label: 'Next attempt', render: (d) => (d.status === 'succeeded' ? `Delivered ${formatDateTime(d.deliveredAt)}` : formatDateTime(d.nextAttemptAt)) },
              ]}
            />
            <Pager pagination={result.pagination} route={route} />
          </>
        )}
      </Loaded>
    </>
  );
}
