import { useState } from 'preact/hooks';
import { useAction } from '../../shared/actions.js';
import type { Client } from '../../shared/api.js';
import { formatDateTime, humanize } from '../../shared/format.js';
import { useTitle } from '../../shared/shell.js';
import type { ApiKey, Partner, PartnerWithKeys } from '../../shared/types.js';
import { Badge, DataTable, TextField } from '../../shared/ui.js';

const statusText: Record<PartnerWithKeys['status'], string> = {
  pending: 'Your application is being reviewed. Once an operator approves it, your API key and webhook signing secret arrive by e-mail, and the catalog, wallet and orders open here. Meanwhile, turn on Test mode (at the top) to get a test key and build your integration on test data.',
  approved: 'Your account is approved: your API keys work and every section of the portal is open.',
  suspended: 'Your account is suspended: your API keys are refused until an operator reinstates it. Contact us to resolve it.',
  rejected: 'Your application was rejected.',
};

/** Status, webhook settings and (once approved) API key metadata: everything a pending account may see (§4). */
export function AccountPage({ api, me, onChanged }: { api: Client; me: PartnerWithKeys; onChanged: (me: PartnerWithKeys) => void }) {
  useTitle('Account', 'Partner portal');
  return (
    <>
      <h1>Your account</h1>
      <section class="card" aria-labelledby="status-title">
        <h2 id="status-title">
          Application status <Badge value={me.status} />
        </h2>
        <p>{statusText[me.status]}</p>
        <dl class="facts">
          <dt>Company</dt>
          <dd>{me.company}</dd>
          <dt>Contact</dt>
          <dd>
            {me.name} · {me.email}
          </dd>
          <dt>Applied</dt>
          <dd>{formatDateTime(me.createdAt)}</dd>
          {me.status !== 'pending' && (
            <>
              <dt>Pricing tier</dt>
              <dd>{humanize(me.tier)}</dd>
            </>
          )}
        </dl>
      </section>
      <WebhookSettings api={api} me={me} onChanged={onChanged} />
      <ChangePassword api={api} />
      {me.status !== 'pending' && <ApiKeys keys={me.apiKeys} />}
    </>
  );
}

function WebhookSettings({ api, me, onChanged }: { api: Client; me: PartnerWithKeys; onChanged: (me: PartnerWithKeys) => void }) {
  const [url, setUrl] = useState(me.webhookUrl ?? '');
  const { run, pending, feedback } = useAction();
  const save = (webhookUrl: string | null) =>
    run({
      action: () => api.patch<Partner>('/partner/me', { webhookUrl }),
      done: (partner) => {
        onChanged({ ...me, ...partner });
        setUrl(partner.webhookUrl ?? '');
        return partner.webhookUrl ? `Events now go to ${partner.webhookUrl}.` : 'Webhook URL removed: events are kept and can be redelivered once you set one.';
      },
    });
  return (
    <section class="card" aria-labelledby="webhook-title">
      <h2 id="webhook-title">Webhook settings</h2>
      <p class="muted">
        {me.webhookUrl ? (
          <>
            Events are sent to <code>{me.webhookUrl}</code>, signed with the secret from your approval e-mail.
          </>
        ) : (
          'No webhook URL: events are kept, not sent.'
        )}
      </p>
      {feedback}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save(url.trim() || null);
        }}
      >
        <TextField id="webhook-url" label="Webhook URL" type="url" placeholder="https://example.com/esim-webhooks" value={url} onInput={setUrl} />
        <div class="actions">
          <button type="submit" disabled={pending}>
            Save webhook URL
          </button>
          {me.webhookUrl && (
            <button type="button" class="secondary" disabled={pending} onClick={() => void save(null)}>
              Remove
            </button>
          )}
          {me.status === 'approved' && <a href="#/webhooks">Deliveries and test event</a>}
        </div>
      </form>
    </section>
  );
}

/** POST /partner/me/password: every session signed in before ends, this one included, so the portal asks to log in again. */
function ChangePassword({ api }: { api: Client }) {
  const [currentPassword, setCurrent] = useState('');
  const [newPassword, setNew] = useState('');
  const { run, pending, feedback } = useAction();
  const change = () =>
    run({
      action: () => api.post('/partner/me/password', { currentPassword, newPassword }),
      done: () => {
        // The token this tab holds ended with the change: the next call signs out and asks to log in with the new password.
        setTimeout(() => void api.get('/partner/me').catch(() => {}), 1_500);
        return 'Your password is changed. Log in again with the new one.';
      },
    });
  return (
    <section class="card" aria-labelledby="password-title">
      <h2 id="password-title">Password</h2>
      {feedback}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void change();
        }}
      >
        <TextField id="password-current" label="Current password" type="password" autocomplete="current-password" required value={currentPassword} onInput={setCurrent} />
        <TextField
          id="password-new"
          label="New password"
          type="password"
          autocomplete="new-password"
          required
          minLength={12}
          maxLength={128}
          hint="12 to 128 characters. Every session signed in before ends."
          value={newPassword}
          onInput={setNew}
        />
        <button type="submit" disabled={pending}>
          Change password
        </button>
      </form>
    </section>
  );
}

function ApiKeys({ keys }: { keys: ApiKey[] }) {
  return (
    <section class="card" aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      <p class="muted">Each key was e-mailed to you once, in full; only its prefix is shown here. Ask us for a new key if one is lost.</p>
      <DataTable
        caption="API keys"
        rows={keys}
        rowKey={(k) => k.id}
        empty="No keys yet."
        columns={[
          { label: 'Key', render: (k) => <code>sk_live_{k.prefix}_…</code> },
          { label: 'Scopes', render: (k) => k.scopes.join(', ') },
          { label: 'Created', render: (k) => formatDateTime(k.createdAt) },
          { label: 'Last used', render: (k) => (k.lastUsedAt ? formatDateTime(k.lastUsedAt) : 'Never') },
          { label: 'Status', render: (k) => (k.revokedAt ? <span><Badge value="revoked" /> {formatDateTime(k.revokedAt)}</span> : <Badge value="active" />) },
        ]}
      />
    </section>
  );
}
