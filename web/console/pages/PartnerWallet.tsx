import { useState } from 'preact/hooks';
import { useAction } from '../../shared/actions.js';
import type { Client } from '../../shared/api.js';
import { ApiError } from '../../shared/api.js';
import { formatDateTime, humanize } from '../../shared/format.js';
import { formatMoney, moneyExample, parseMoney } from '../../shared/money.js';
import { href } from '../../shared/router.js';
import type { Wallet, WalletCredit } from '../../shared/types.js';
import { ModeSwitch, modeQuery, TestModeBanner, type Mode } from '../../shared/testMode.js';
import { DataTable, Loaded, TextField, useResource } from '../../shared/ui.js';
import { useCan } from '../role.js';

/** A typed amount the form cannot send, said the way the API says its own problems. */
function badAmount(detail: string): ApiError {
  return new ApiError({ type: 'about:blank', title: 'Invalid amount', status: 400, code: 'VALIDATION_ERROR', detail, requestId: '' });
}

/**
 * Balance, operator top-up (bank transfer received) and adjustment, and the
 * 50 latest ledger entries (§6). Behind the test-mode switch, the partner's
 * test wallet, read-only: test money is credited by the partner (§14).
 */
export function PartnerWallet({ api, partnerId }: { api: Client; partnerId: string }) {
  const path = `/partners/${encodeURIComponent(partnerId)}/wallet`;
  const [mode, setMode] = useState<Mode>('live');
  const wallet = useResource(() => api.get<Wallet>(path, modeQuery(mode)), [partnerId, mode]);
  const can = useCan();
  return (
    <section class={mode === 'test' ? 'card test-list' : 'card'} aria-labelledby="wallet-title">
      <TestModeBanner mode={mode}>The partner’s test wallet: play money, never part of a live total.</TestModeBanner>
      <div class="toolbar">
        <h2 id="wallet-title">{mode === 'test' ? 'Test wallet' : 'Wallet'}</h2>
        <span class="spacer" />
        <ModeSwitch id="wallet-test-mode" mode={mode} onChange={setMode} />
      </div>
      <Loaded resource={wallet}>
        {(w) => (
          <>
            <p class="big" data-testid="console-balance">
              {formatMoney(w.balance, w.currency)}
            </p>
            <div class="grid" hidden={!can('finance') || mode === 'test'}>
              <TopUp api={api} path={path} currency={w.currency} onDone={wallet.reload} />
              <Adjust api={api} path={path} currency={w.currency} onDone={wallet.reload} />
            </div>
            <h3>Latest entries</h3>
            <DataTable
              caption="Latest ledger entries"
              rows={w.ledger}
              rowKey={(e) => e.id}
              empty="No entries yet."
              columns={[
                { label: 'Date', render: (e) => formatDateTime(e.createdAt) },
                { label: 'Type', render: (e) => humanize(e.type) },
                { label: 'Details', render: (e) => (e.orderId ? <a href={href('orders', e.orderId)}>{e.description ?? e.orderId}</a> : e.reference ?? e.description ?? '—') },
                { label: 'Amount', numeric: true, render: (e) => formatMoney(e.amount, w.currency) },
                { label: 'Balance after', numeric: true, render: (e) => formatMoney(e.balanceAfter, w.currency) },
              ]}
            />
          </>
        )}
      </Loaded>
    </section>
  );
}

function TopUp({ api, path, currency, onDone }: { api: Client; path: string; currency: string; onDone: () => void }) {
  const { run, pending, feedback } = useAction();
  const [amount, setAmount] = useState('');
  const [reference, setReference] = useState('');
  const [note, setNote] = useState('');
  const submit = () => {
    const minor = parseMoney(amount, currency);
    if (minor === null || minor <= 0) return run({ action: () => Promise.reject(badAmount(`Enter a positive amount in ${currency}, e.g. ${moneyExample(currency)}.`)) });
    return run({
      confirm: `Credit ${formatMoney(minor, currency)} for the bank transfer ${reference.trim()}?`,
      confirmLabel: 'Credit wallet',
      action: () => api.postForStatus<WalletCredit>(`${path}/topups`, { amount: minor, reference: reference.trim(), ...(note.trim() ? { note: note.trim() } : {}) }),
      done: ({ status, body: { entry, balance } }) => {
        onDone();
        setAmount('');
        setReference('');
        setNote('');
        return status === 201
          ? `Credited ${formatMoney(entry.amount, currency)}; the balance is now ${formatMoney(balance, currency)}.`
          : `The transfer ${entry.reference} was credited before (${formatMoney(entry.amount, currency)} on ${formatDateTime(entry.createdAt)}); nothing was added.`;
      },
    });
  };
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <h3>Top up</h3>
      {feedback}
      <TextField id="topup-amount" label={`Amount (${currency})`} inputMode="decimal" required hint={`e.g. ${moneyExample(currency)}`} value={amount} onInput={setAmount} />
      <TextField id="topup-reference" label="Bank transfer reference" required maxLength={100} value={reference} onInput={setReference} />
      <TextField id="topup-note" label="Note (optional)" maxLength={500} value={note} onInput={setNote} />
      <button type="submit" disabled={pending}>
        Top up
      </button>
    </form>
  );
}

function Adjust({ api, path, currency, onDone }: { api: Client; path: string; currency: string; onDone: () => void }) {
  const { run, pending, feedback } = useAction();
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const submit = () => {
    const minor = parseMoney(amount, currency, { signed: true });
    if (minor === null || minor === 0) return run({ action: () => Promise.reject(badAmount(`Enter a non-zero amount in ${currency}; a minus sign debits, e.g. -${moneyExample(currency)}.`)) });
    return run({
      confirm: `${minor > 0 ? 'Credit' : 'Debit'} ${formatMoney(Math.abs(minor), currency)} as an adjustment (“${reason.trim()}”)?`,
      confirmLabel: 'Adjust balance',
      action: () => api.post<WalletCredit>(`${path}/adjustments`, { amount: minor, reason: reason.trim() }),
      done: ({ balance }) => {
        onDone();
        setAmount('');
        setReason('');
        return `Adjusted; the balance is now ${formatMoney(balance, currency)}.`;
      },
    });
  };
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <h3>Adjust</h3>
      {feedback}
      <TextField id="adjust-amount" label={`Amount (${currency}, negative to debit)`} inputMode="decimal" required hint={`e.g. -${moneyExample(currency)}`} value={amount} onInput={setAmount} />
      <TextField id="adjust-reason" label="Reason" required maxLength={500} value={reason} onInput={setReason} />
      <button type="submit" disabled={pending}>
        Adjust
      </button>
    </form>
  );
}
