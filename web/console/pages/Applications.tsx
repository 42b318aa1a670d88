import { useState } from 'preact/hooks';
import { tiers, type Tier } from '@esim/vocabulary';
import { useAction, type ActionState } from '../../shared/actions.js';
import type { Client } from '../../shared/api.js';
import { formatDateTime, humanize } from '../../shared/format.js';
import { href, pageOf, type Route } from '../../shared/router.js';
import { useTitle } from '../../shared/shell.js';
import type { Page, Partner } from '../../shared/types.js';
import { Loaded, Pager, useResource } from '../../shared/ui.js';
import { useCan } from '../role.js';

/** Pending applications, oldest decisions first to hand: approve at a tier, or reject with a reason (§10). */
export function ApplicationsPage({ api, route }: { api: Client; route: Route }) {
  useTitle('Applications', 'Operator console');
  const page = pageOf(route);
  const pending = useResource(() => api.get<Page<Partner>>('/partners', { status: 'pending', page, limit: 20 }), [page]);
  const action = useAction();
  return (
    <>
      <h1>Pending applications</h1>
      {action.feedback}
      <div class="toolbar">
        <span class="spacer" />
        <button type="button" class="secondary" onClick={pending.reload}>
          Refresh
        </button>
      </div>
      <Loaded resource={pending}>
        {(result) => (
          <>
            {result.data.length === 0 && <p class="muted">No application is waiting.</p>}
            {result.data.map((partner) => (
              <Review key={partner.id} api={api} partner={partner} action={action} onDecided={pending.reload} />
            ))}
            <Pager pagination={result.pagination} route={route} />
          </>
        )}
      </Loaded>
    </>
  );
}

/** Approve and reject for one pending partner; also used on the partner's own page. */
export function Review({ api, partner, action, onDecided }: { api: Client; partner: Partner; action: ActionState; onDecided: () => void }) {
  const [tier, setTier] = useState<Tier>('standard');
  const [reason, setReason] = useState('');
  const can = useCan();
  const approve = () =>
    action.run({
      confirm: `Approve ${partner.company} (${partner.email}) at the ${tier} tier? Their API key and webhook signing secret are e-mailed to them.`,
      confirmLabel: 'Approve',
      action: () => api.post<Partner>(`/partners/${encodeURIComponent(partner.id)}/approve`, { tier }),
      done: (approved) => {
        onDecided();
        return `Approved ${approved.company} at the ${approved.tier} tier; the key and secret are on their way by e-mail.`;
      },
    });
  const reject = () =>
    action.run({
      confirm: `Reject ${partner.company} (${partner.email})? The reason is e-mailed to them.`,
      confirmLabel: 'Reject',
      action: () => api.post<Partner>(`/partners/${encodeURIComponent(partner.id)}/reject`, { reason }),
      done: (rejected) => {
        onDecided();
        return `Rejected ${rejected.company}.`;
      },
    });
  const labelId = `application-${partner.id}`;
  return (
    <section class="card" aria-labelledby={labelId}>
      <h2 id={labelId}>
        <a href={href('partners', partner.id)}>{partner.company}</a>
      </h2>
      <p>
        {partner.name} · {partner.email} · applied {formatDateTime(partner.createdAt)}
        {partner.webhookUrl && (
          <>
            {' '}
            · webhook <code>{partner.webhookUrl}</code>
          </>
        )}
      </p>
      {!partner.emailVerified && <p class="muted">The applicant has not verified this e-mail address yet: approval waits for it.</p>}
      {can('support') && (
      <div class="grid">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void approve();
          }}
        >
          <div class="field">
            <label for={`${labelId}-tier`}>Tier</label>
            <select id={`${labelId}-tier`} value={tier} onChange={(e) => setTier((e.currentTarget as HTMLSelectElement).value as Tier)}>
              {tiers.map((t) => (
                <option key={t} value={t}>
                  {humanize(t)}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" disabled={action.pending}>
            Approve
          </button>
        </form>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void reject();
          }}
        >
          <div class="field">
            <label for={`${labelId}-reason`}>Reason for rejecting</label>
            <textarea id={`${labelId}-reason`} required maxLength={1000} value={reason} onInput={(e) => setReason((e.currentTarget as HTMLTextAreaElement).value)} />
          </div>
          <button type="submit" class="danger" disabled={action.pending}>
            Reject
          </button>
        </form>
      </div>
      )}
    </section>
  );
}
