import { useMemo, useState } from 'preact/hooks';
import { useAction } from '../../shared/actions.js';
import { ApiError, type Client } from '../../shared/api.js';
import { formatDateTime } from '../../shared/format.js';
import { formatMoney, moneyExample, parseMoney } from '../../shared/money.js';
import { useTitle } from '../../shared/shell.js';
import type { ApiKey, CreatedTestKey, LedgerEntry, Page, Partner, PartnerWithKeys, Plan, TestWebhookSecret, Wallet } from '../../shared/types.js';
import { Badge, CopyButton, DataTable, Loaded, TextField, useResource } from '../../shared/ui.js';
import { ApiCall, curlPost, newClientRequestId } from '../apiCall.js';
import { keyVariableOf } from '../mode.js';

/** At most this many test keys are active at once (§14); the API says so too, this only explains the refusal ahead. */
const maxActiveTestKeys = 5;

/**
 * The sandbox's own controls (§14), for a pending partner as for an
 * approved one: test keys (each shown once), the test webhook URL and its
 * signing secret, the test wallet's credit, the first test order's call,
 * and wiping the test data. `api` is the test mode's client: its reads
 * come from the test account.
 */
export function TestToolsPage({ api, me, onChanged }: { api: Client; me: PartnerWithKeys; onChanged: (me: PartnerWithKeys) => void }) {
  useTitle('Test tools', 'Partner portal');
  const reloadMe = () => api.get<PartnerWithKeys>('/partner/me').then(onChanged, () => {});
  return (
    <>
      <h1>Test tools</h1>
      <p>
        Build your integration against test data before you spend anything: a test key works on every partner API call, on a test wallet, test orders and simulated
        eSIMs of their own. Live data never sees them, nor they it.
      </p>
      <TestKeys api={api} keys={me.testKeys ?? []} onChanged={reloadMe} />
      <TestWebhooks api={api} me={me} onChanged={onChanged} />
      <TestWallet api={api} />
      <FirstTestOrder api={api} />
      <WipeTestData api={api} />
    </>
  );
}

function TestKeys({ api, keys, onChanged }: { api: Client; keys: ApiKey[]; onChanged: () => void }) {
  const { run, pending, feedback } = useAction();
  const [created, setCreated] = useState<CreatedTestKey | undefined>();
  const active = keys.filter((k) => !k.revokedAt).length;
  const create = () =>
    run({
      action: () => api.post<CreatedTestKey>('/partner/me/test-keys'),
      done: (answer) => {
        setCreated(answer);
        onChanged();
        return `Test key sk_test_${answer.prefix}_… created. Copy it now: it is shown only this once.`;
      },
    });
  const revoke = (key: ApiKey) =>
    run({
      confirm: `Revoke the test key sk_test_${key.prefix}_…? Calls with it are refused from now on.`,
      confirmLabel: 'Revoke',
      action: () => api.post(`/partner/me/test-keys/${encodeURIComponent(key.id)}/revoke`),
      done: () => {
        if (created?.id === key.id) setCreated(undefined);
        onChanged();
        return `Test key sk_test_${key.prefix}_… revoked.`;
      },
    });
  return (
    <section class="card" aria-labelledby="test-keys-title">
      <h2 id="test-keys-title">Test keys</h2>
      <p class="muted">
        A test key has all four scopes and its own rate limit. It is shown once, when you create it; only its prefix is kept here. At most {maxActiveTestKeys} active.
      </p>
      {feedback}
      {created && (
        <div class="alert alert-ok" role="status">
          <p>
            Your new test key (shown once): <code class="secret-once" data-testid="test-key">{created.key}</code>
          </p>
          <CopyButton text={created.key} label="Copy test key" />
        </div>
      )}
      <div class="actions">
        <button type="button" disabled={pending || active >= maxActiveTestKeys} onClick={() => void create()}>
          Create test key
        </button>
        {active >= maxActiveTestKeys && <span class="muted">Revoke a key to create another.</span>}
      </div>
      <DataTable
        caption="Test keys"
        rows={keys}
        rowKey={(k) => k.id}
        empty="No test keys yet."
        columns={[
          { label: 'Key', render: (k) => <code>sk_test_{k.prefix}_…</code> },
          { label: 'Created', render: (k) => formatDateTime(k.createdAt) },
          { label: 'Last used', render: (k) => (k.lastUsedAt ? formatDateTime(k.lastUsedAt) : 'Never') },
          { label: 'Status', render: (k) => (k.revokedAt ? <span><Badge value="revoked" /> {formatDateTime(k.revokedAt)}</span> : <Badge value="active" />) },
          {
            label: 'Action',
            render: (k) =>
              k.revokedAt ? (
                '—'
              ) : (
                <button type="button" class="secondary" disabled={pending} onClick={() => void revoke(k)}>
                  Revoke<span class="visually-hidden"> sk_test_{k.prefix}</span>
                </button>
              ),
          },
        ]}
      />
    </section>
  );
}

/** The secret as the API names it: this route answers like the live secret's routes do. */
const secretOf = (answer: TestWebhookSecret) => answer.secret ?? answer.webhookSecret ?? '';

function TestWebhooks({ api, me, onChanged }: { api: Client; me: PartnerWithKeys; onChanged: (me: PartnerWithKeys) => void }) {
  const current = me.testWebhookUrl ?? null;
  const [url, setUrl] = useState(current ?? '');
  const [secret, setSecret] = useState<string | undefined>();
  const { run, pending, feedback } = useAction();
  const save = (testWebhookUrl: string | null) =>
    run({
      action: () => api.patch<Partner & { testWebhookUrl?: string | null }>('/partner/me', { testWebhookUrl }),
      done: (partner) => {
        onChanged({ ...me, ...partner });
        setUrl(partner.testWebhookUrl ?? '');
        return partner.testWebhookUrl ? `Test events now go to ${partner.testWebhookUrl}.` : 'Test webhook URL removed: test events are kept, not sent.';
      },
    });
  const newSecret = () =>
    run({
      confirm: 'Make a new test signing secret? The one you have stops signing test events at once.',
      confirmLabel: 'New secret',
      action: () => api.post<TestWebhookSecret>('/partner/me/test-webhook-secret'),
      done: (answer) => {
        setSecret(secretOf(answer));
        return 'New test signing secret made. Copy it now: it is shown only this once.';
      },
    });
  return (
    <section class="card" aria-labelledby="test-webhook-title">
      <h2 id="test-webhook-title">Test webhooks</h2>
      <p class="muted">
        Test events go to this URL only, never to your live webhook URL, signed with a test signing secret of their own. Each event says{' '}
        <code>"livemode": false</code>.
      </p>
      {feedback}
      {secret && (
        <div class="alert alert-ok" role="status">
          <p>
            Test signing secret (shown once): <code class="secret-once" data-testid="test-webhook-secret">{secret}</code>
          </p>
          <CopyButton text={secret} label="Copy test secret" />
        </div>
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save(url.trim() || null);
        }}
      >
        <TextField id="test-webhook-url" label="Test webhook URL" type="url" placeholder="https://example.com/esim-test-webhooks" value={url} onInput={setUrl} />
        <div class="actions">
          <button type="submit" disabled={pending}>
            Save test webhook URL
          </button>
          {current && (
            <button type="button" class="secondary" disabled={pending} onClick={() => void save(null)}>
              Remove
            </button>
          )}
          <button type="button" class="secondary" disabled={pending} onClick={() => void newSecret()}>
            New test signing secret
          </button>
        </div>
      </form>
    </section>
  );
}

/** A typed amount the form cannot send, said the way the API says its own problems. */
function badAmount(detail: string): ApiError {
  return new ApiError({ type: 'about:blank', title: 'Invalid amount', status: 400, code: 'VALIDATION_ERROR', detail, requestId: '' });
}

/** The test wallet starts at 0; credit it here (or with POST /partner/test/wallet/credit and a test key). */
function TestWallet({ api }: { api: Client }) {
  const wallet = useResource(() => api.get<Wallet>('/partner/me/wallet'), []);
  const [amount, setAmount] = useState('');
  const { run, pending, feedback } = useAction();
  const currency = wallet.data?.currency ?? 'USD';
  const credit = () => {
    const minor = parseMoney(amount, currency);
    return run({
      action: async () => {
        if (minor === null || minor < 1) throw badAmount(`Type an amount in ${currency}, e.g. ${moneyExample(currency)}.`);
        return api.post<LedgerEntry>('/partner/me/test/wallet/credit', { amount: minor });
      },
      done: (entry) => {
        wallet.reload();
        setAmount('');
        return `Credited ${formatMoney(entry.amount, currency)} of test money; the test balance is now ${formatMoney(entry.balanceAfter, currency)}.`;
      },
    });
  };
  return (
    <section class="card" aria-labelledby="test-wallet-title">
      <h2 id="test-wallet-title">Test wallet</h2>
      <Loaded resource={wallet}>
        {(w) => (
          <p class="big" data-testid="test-wallet-balance">
            {formatMoney(w.balance, w.currency)}
          </p>
        )}
      </Loaded>
      <p class="muted">Test orders are paid from this balance, with the live catalog's prices. It is play money: credit as much as your tests need.</p>
      {feedback}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void credit();
        }}
      >
        <TextField id="test-credit-amount" label={`Amount (${currency})`} inputMode="decimal" required value={amount} onInput={setAmount} hint={`e.g. ${moneyExample(currency)}; at most 1,000,000.00.`} />
        <button type="submit" disabled={pending}>
          Credit test wallet
        </button>
      </form>
    </section>
  );
}

/** The call that places a test order, with a plan of the catalog filled in: ordering stays an API call (§4). */
function FirstTestOrder({ api }: { api: Client }) {
  const plans = useResource(() => api.get<Page<Plan>>('/partner/me/catalog', { limit: 1 }), []);
  const clientRequestId = useMemo(() => newClientRequestId('test-order'), []);
  const planId = plans.data?.data[0]?.id ?? 'plan_…';
  const body = { clientRequestId, planId, email: 'traveller@example.com', phoneNumber: '+33612345678' };
  return (
    <section class="card" aria-labelledby="test-order-title">
      <h2 id="test-order-title">Place a test order</h2>
      <p>
        With your test key in <code>ESIM_TEST_KEY</code>, this call orders a test eSIM from the simulator and pays it from the test wallet. It then shows in Orders, with its QR
        code, while test mode is on. The customer e-mail <code>provision.fail@example.com</code> makes provisioning fail; <code>provision.flaky@example.com</code> fails twice, then
        succeeds.
      </p>
      <ApiCall id="test-order-call" label="Test order call" command={curlPost('/partner/orders', body, keyVariableOf('test'))} />
    </section>
  );
}

function WipeTestData({ api }: { api: Client }) {
  const { run, pending, feedback } = useAction();
  const wipe = () =>
    run({
      confirm: 'Delete all your test data: test orders, eSIMs, ledger, events and deliveries? Your test keys stay. Live data is not touched.',
      confirmLabel: 'Delete test data',
      action: () => api.post('/partner/me/test-data/delete'),
      done: () => 'Deleting your test data: it is all gone within a minute. Live data is untouched.',
    });
  return (
    <section class="card" aria-labelledby="wipe-title">
      <h2 id="wipe-title">Start over</h2>
      <p class="muted">Deletes every test order, eSIM, ledger entry, event and delivery of your account, and sets the test wallet back to 0.</p>
      {feedback}
      <button type="button" class="danger" disabled={pending} onClick={() => void wipe()}>
        Delete all test data
      </button>
    </section>
  );
}
