import { useState } from 'preact/hooks';
import { scopes, type Scope } from '@esim/vocabulary';
import { useAction } from '../../shared/actions.js';
import type { Client } from '../../shared/api.js';
import { formatDateTime } from '../../shared/format.js';
import type { AdminPartner, ApiKey } from '../../shared/types.js';
import { Badge, DataTable } from '../../shared/ui.js';
import { useCan } from '../role.js';

/** The partner's keys (metadata only: a key exists in full only in the e-mail that delivered it), issue and revoke (§4). */
export function PartnerKeys({ api, partner, onChanged }: { api: Client; partner: AdminPartner; onChanged: () => void }) {
  const { run, pending, feedback } = useAction();
  const [chosen, setChosen] = useState<Scope[]>([...scopes]);
  const can = useCan();
  const path = `/partners/${encodeURIComponent(partner.id)}/keys`;
  const revoke = (key: ApiKey) =>
    run({
      confirm: `Revoke the key sk_live_${key.prefix}_… of ${partner.company}? Every call with it is refused within seconds. This cannot be undone.`,
      confirmLabel: 'Revoke key',
      action: () => api.post<ApiKey>(`${path}/${encodeURIComponent(key.id)}/revoke`),
      done: (revoked) => {
        onChanged();
        return `Key sk_live_${revoked.prefix}_… revoked.`;
      },
    });
  const issue = () =>
    run({
      confirm: `Issue a new API key to ${partner.company} with ${chosen.join(', ')}? It is e-mailed to ${partner.email}.`,
      confirmLabel: 'Issue key',
      action: () => api.post<ApiKey>(path, { scopes: chosen }),
      done: (issued) => {
        onChanged();
        return `Key sk_live_${issued.prefix}_… issued and e-mailed to the partner.`;
      },
    });
  const toggle = (scope: Scope, on: boolean) => setChosen(on ? scopes.filter((s) => s === scope || chosen.includes(s)) : chosen.filter((s) => s !== scope));
  return (
    <section class="card" aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      {feedback}
      <DataTable
        caption="API keys"
        rows={partner.apiKeys}
        rowKey={(k) => k.id}
        empty="No keys: the first is issued at approval."
        columns={[
          { label: 'Key', render: (k) => <code>sk_live_{k.prefix}_…</code> },
          { label: 'Scopes', render: (k) => k.scopes.join(', ') },
          { label: 'Created', render: (k) => formatDateTime(k.createdAt) },
          { label: 'Last used', render: (k) => (k.lastUsedAt ? formatDateTime(k.lastUsedAt) : 'Never') },
          {
            label: 'Status',
            render: (k) =>
              k.revokedAt ? (
                <span>
                  <Badge value="revoked" /> {formatDateTime(k.revokedAt)}
                </span>
              ) : !can('support') ? (
                'active'
              ) : (
                <button type="button" class="danger" disabled={pending} onClick={() => void revoke(k)} aria-label={`Revoke key ${k.prefix}`}>
                  Revoke
                </button>
              ),
          },
        ]}
      />
      {(partner.status === 'approved' || partner.status === 'suspended') && can('support') && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void issue();
          }}
        >
          <fieldset>
            <legend>Scopes of a new key</legend>
            {scopes.map((scope) => (
              <label key={scope}>
                <input type="checkbox" checked={chosen.includes(scope)} onChange={(e) => toggle(scope, (e.currentTarget as HTMLInputElement).checked)} /> {scope}
              </label>
            ))}
          </fieldset>
          <button type="submit" disabled={pending || chosen.length === 0}>
            Issue key
          </button>
        </form>
      )}
    </section>
  );
}
