import { useState } from 'preact/hooks';
import { partnerEventTypes } from '@esim/vocabulary';
import { useAction } from './actions.js';
import type { Client } from './api.js';
import { formatDateTime } from './format.js';
import type { WebhookEndpoint, WebhookEndpointWithSecret } from './types.js';
import { Badge, CopyButton, DataTable, Loaded, TextField, useResource } from './ui.js';

/**
 * The webhook endpoints of a partner (§9 "Several endpoints per partner"):
 * the portal manages its own under /partner/me/webhook-endpoints; the
 * console reads any partner's under /partners/{id}/webhook-endpoints
 * (read-only there). A new or rotated secret is shown once, here.
 */
export function WebhookEndpoints({
  api,
  base,
  readOnly = false,
  createFields,
  onShowDeliveries,
}: {
  api: Client;
  base: string;
  readOnly?: boolean;
  /** Sent with every new endpoint: `{ livemode: false }` makes a test endpoint (§14). */
  createFields?: Record<string, unknown>;
  onShowDeliveries?: (endpointId: string) => void;
}) {
  const endpoints = useResource(() => api.get<{ data: WebhookEndpoint[] }>(base), [base]);
  const { run, pending, feedback } = useAction();
  const [secret, setSecret] = useState<{ endpointId: string; secret: string } | undefined>();
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [types, setTypes] = useState('');
  const [overlapHours, setOverlapHours] = useState('24');
  const [since, setSince] = useState('');

  const eventTypesOf = (text: string) => {
    const list = text.split(/[\s,]+/).filter(Boolean);
    return list.length === 0 ? null : list;
  };
  const create = () =>
    run({
      action: () => api.post<WebhookEndpointWithSecret>(base, { ...createFields, url: url.trim(), description: description.trim(), eventTypes: eventTypesOf(types) }),
      done: (created) => {
        setSecret({ endpointId: created.id, secret: created.secret });
        setUrl('');
        setDescription('');
        setTypes('');
        endpoints.reload();
        return `Endpoint ${created.id} added. Copy its signing secret now: it is shown only this once.`;
      },
    });
  const toggle = (endpoint: WebhookEndpoint) =>
    run({
      action: () => api.patch<WebhookEndpoint>(`${base}/${endpoint.id}`, { enabled: !endpoint.enabled }),
      done: (changed) => (endpoints.reload(), changed.enabled ? `Endpoint ${changed.id} enabled.` : `Endpoint ${changed.id} disabled: no event is sent to it.`),
    });
  const rotate = (endpoint: WebhookEndpoint) =>
    run({
      confirm: `Rotate the signing secret of ${endpoint.url}? The old secret keeps signing for ${overlapHours || '24'} hours beside the new one.`,
      confirmLabel: 'Rotate',
      action: () => api.post<WebhookEndpointWithSecret>(`${base}/${endpoint.id}/rotate-secret`, { overlapHours: Number(overlapHours || '24') }),
      done: (rotated) => (setSecret({ endpointId: rotated.id, secret: rotated.secret }), `New secret for ${rotated.id}: copy it now, it is shown only this once.`),
    });
  const recover = (endpoint: WebhookEndpoint) =>
    run({
      action: () => api.post<{ queued: number }>(`${base}/${endpoint.id}/recover`, { since: since ? new Date(since).toISOString() : new Date(Date.now() - 86_400_000).toISOString() }),
      done: ({ queued }) => `${queued} event${queued === 1 ? '' : 's'} queued again for ${endpoint.url}.`,
    });
  const test = (endpoint: WebhookEndpoint) =>
    run({ action: () => api.post<{ eventId: string }>(`${base}/${endpoint.id}/test`), done: ({ eventId }) => `Test event ${eventId} queued for ${endpoint.url} alone.` });
  const remove = (endpoint: WebhookEndpoint) =>
    run({
      confirm: `Delete the endpoint ${endpoint.url}? Its pending deliveries end without being sent.`,
      confirmLabel: 'Delete',
      action: () => api.delete(`${base}/${endpoint.id}`),
      done: () => (endpoints.reload(), `Endpoint ${endpoint.id} deleted.`),
    });

  return (
    <section class="card" aria-labelledby="endpoints-title">
      <h2 id="endpoints-title">Webhook endpoints</h2>
      <p class="muted">
        Every event goes to each enabled endpoint whose event types include it, signed with that endpoint’s own secret. The first one listed is your webhook URL (signed with the secret from
        your approval e-mail). At most 10.
      </p>
      {feedback}
      {secret && (
        <div class="alert alert-ok" role="status">
          <p>
            Signing secret of <code>{secret.endpointId}</code> (shown once): <code data-testid="endpoint-secret" style={{ overflowWrap: 'anywhere' }}>{secret.secret}</code>
          </p>
          <CopyButton text={secret.secret} label="Copy secret" />
        </div>
      )}
      <Loaded resource={endpoints}>
        {(result) => (
          <DataTable
            caption="Webhook endpoints"
            rows={result.data}
            rowKey={(e) => e.id}
            empty="No endpoints yet."
            columns={[
              { label: 'URL', render: (e) => (<><code style={{ overflowWrap: 'anywhere' }}>{e.url}</code>{e.description && (<><br /><small>{e.description}</small></>)}</>) },
              { label: 'Events', render: (e) => (e.eventTypes ? e.eventTypes.join(', ') : 'All') },
              { label: 'Status', render: (e) => <Badge value={e.enabled ? 'active' : e.disabledReason === 'failing' ? 'failed' : 'inactive'} /> },
              { label: 'Created', render: (e) => formatDateTime(e.createdAt) },
              {
                label: 'Actions',
                render: (e) => (
                  <span class="actions">
                    {onShowDeliveries && (
                      <button type="button" class="secondary" onClick={() => onShowDeliveries(e.id)}>
                        Deliveries
                      </button>
                    )}
                    {!readOnly && (
                      <>
                        <button type="button" class="secondary" disabled={pending} onClick={() => void toggle(e)}>
                          {e.enabled ? 'Disable' : 'Enable'}
                        </button>
                        <button type="button" class="secondary" disabled={pending} onClick={() => void test(e)}>
                          Test
                        </button>
                        <button type="button" class="secondary" disabled={pending} onClick={() => void recover(e)}>
                          Recover
                        </button>
                        <button type="button" class="secondary" disabled={pending} onClick={() => void rotate(e)}>
                          Rotate secret
                        </button>
                        <button type="button" class="secondary" disabled={pending} onClick={() => void remove(e)}>
                          Delete
                        </button>
                      </>
                    )}
                  </span>
                ),
              },
            ]}
          />
        )}
      </Loaded>
      {!readOnly && (
        <>
          <div class="toolbar">
            <TextField id="endpoint-overlap" label="Rotation overlap (hours, 0–72)" type="number" min="0" max="72" value={overlapHours} onInput={setOverlapHours} />
            <TextField id="endpoint-since" label="Recover since" type="datetime-local" value={since} onInput={setSince} hint="Within the last 30 days; empty: the last 24 hours." />
          </div>
          <form
            onSubmit={(event) => {
              event.preventDefault();
              void create();
            }}
          >
            <h3>Add an endpoint</h3>
            <TextField id="endpoint-url" label="URL" type="url" required placeholder="https://example.com/esim-webhooks" value={url} onInput={setUrl} />
            <TextField id="endpoint-description" label="Description" value={description} onInput={setDescription} />
            <TextField id="endpoint-types" label="Event types" value={types} onInput={setTypes} hint={`Comma-separated; empty for every type. One of: ${partnerEventTypes.join(', ')}.`} />
            <div class="actions">
              <button type="submit" disabled={pending}>
                Add endpoint
              </button>
            </div>
          </form>
        </>
      )}
    </section>
  );
}
