import { useEffect, useState } from 'preact/hooks';
import { tiers, type Tier } from '@esim/vocabulary';
import { useAction } from '../../shared/actions.js';
import type { Client } from '../../shared/api.js';
import { formatDateTime, humanize } from '../../shared/format.js';
import { href, navigate } from '../../shared/router.js';
import { useTitle } from '../../shared/shell.js';
import type { AdminPartner, Partner } from '../../shared/types.js';
import { Badge, Loaded, useResource } from '../../shared/ui.js';
import { WebhookEndpoints } from '../../shared/webhookEndpoints.js';
import { Review } from './Applications.js';
import { PartnerKeys } from './PartnerKeys.js';
import { PartnerWallet } from './PartnerWallet.js';
import { useCan } from '../role.js';

/** One partner: review, suspension, tier, keys, webhook secret and wallet (§10). */
export function PartnerPage({ api, partnerId }: { api: Client; partnerId: string }) {
  const partner = useResource(() => api.get<AdminPartner>(`/partners/${encodeURIComponent(partnerId)}`), [partnerId]);
  useTitle(partner.data?.company ?? 'Partner', 'Operator console');
  return (
    <>
      <p>
        <a href="#/partners">← All partners</a>
      </p>
      <Loaded resource={partner}>
        {(p) => (
          <>
            <h1>
              {p.company} <Badge value={p.status} />
            </h1>
            <section class="card" aria-labelledby="facts-title">
              <h2 id="facts-title">Account</h2>
              <dl class="facts">
                <dt>Partner id</dt>
                <dd>
                  <code>{p.id}</code>
                </dd>
                <dt>Contact</dt>
                <dd>
                  {p.name} · {p.email}
                </dd>
                <dt>Tier</dt>
                <dd>{humanize(p.tier)}</dd>
                <dt>Webhook URL</dt>
                <dd>{p.webhookUrl ? <code>{p.webhookUrl}</code> : 'None'}</dd>
                <dt>Applied</dt>
                <dd>{formatDateTime(p.createdAt)}</dd>
                {p.rejectionReason && (
                  <>
                    <dt>Rejection reason</dt>
                    <dd>{p.rejectionReason}</dd>
                  </>
                )}
              </dl>
              <p class="actions">
                <a href={href('orders', { partnerId: p.id })}>Orders</a>
                <a href={href('deliveries', { partnerId: p.id })}>Webhook deliveries</a>
              </p>
            </section>
            {p.status === 'pending' ? <PendingReview api={api} partner={p} onChanged={partner.reload} /> : <AccountActions api={api} partner={p} onChanged={partner.reload} />}
            <PartnerKeys api={api} partner={p} onChanged={partner.reload} />
            <PartnerWallet api={api} partnerId={p.id} />
            {p.status !== 'pending' && (
              <WebhookEndpoints api={api} base={`/partners/${p.id}/webhook-endpoints`} readOnly onShowDeliveries={(id) => navigate(href('deliveries', { partnerId: p.id, endpointId: id }))} />
            )}
          </>
        )}
      </Loaded>
    </>
  );
}

function PendingReview({ api, partner, onChanged }: { api: Client; partner: AdminPartner; onChanged: () => void }) {
  const action = useAction();
  return (
    <>
      {action.feedback}
      <Review api={api} partner={partner} action={action} onDecided={onChanged} />
    </>
  );
}

/** Suspend or reinstate, change the tier, rotate the webhook signing secret. */
function AccountActions({ api, partner, onChanged }: { api: Client; partner: AdminPartner; onChanged: () => void }) {
  const { run, pending, feedback } = useAction();
  const [tier, setTier] = useState<Tier>(partner.tier);
  const can = useCan();
  useEffect(() => setTier(partner.tier), [partner.tier]);
  const path = `/partners/${encodeURIComponent(partner.id)}`;
  const toggle = (verb: 'suspend' | 'reinstate') =>
    run({
      confirm:
        verb === 'suspend'
          ? `Suspend ${partner.company}? Their API keys and portal views are refused until reinstated.`
          : `Reinstate ${partner.company}? Their API keys work again at once.`,
      confirmLabel: humanize(verb),
      action: () => api.post<Partner>(`${path}/${verb}`),
      done: (changed) => {
        onChanged();
        return `${changed.company} is now ${changed.status}.`;
      },
    });
  const changeTier = () =>
    run({
      confirm: `Change ${partner.company} from the ${partner.tier} to the ${tier} tier? Their catalog prices change at once.`,
      confirmLabel: 'Change tier',
      action: () => api.patch<Partner>(path, { tier }),
      done: (changed) => {
        onChanged();
        return `${changed.company} is now on the ${changed.tier} tier.`;
      },
    });
  const rotate = () =>
    run({
      confirm: `Rotate the webhook signing secret of ${partner.company}? The new secret is e-mailed to them and the old one stops signing at once.`,
      confirmLabel: 'Rotate secret',
      action: () => api.post<{ rotatedAt: string }>(`${path}/webhook-secret/rotate`),
      done: ({ rotatedAt }) => `Webhook secret rotated at ${formatDateTime(rotatedAt)}; the new one was e-mailed to the partner.`,
    });
  if (partner.status === 'rejected' || !(can('support') || can('admin'))) return null;
  return (
    <section class="card" aria-labelledby="actions-title">
      <h2 id="actions-title">Status, tier and webhook secret</h2>
      {feedback}
      <div class="grid">
        <div hidden={!can('support')}>
          {partner.status === 'approved' && (
            <button type="button" class="danger" disabled={pending} onClick={() => void toggle('suspend')}>
              Suspend
            </button>
          )}
          {partner.status === 'suspended' && (
            <button type="button" disabled={pending} onClick={() => void toggle('reinstate')}>
              Reinstate
            </button>
          )}
        </div>
        <form
          hidden={!can('admin')}
          onSubmit={(e) => {
            e.preventDefault();
            void changeTier();
          }}
        >
          <div class="field">
            <label for="partner-tier">Tier</label>
            <select id="partner-tier" value={tier} onChange={(e) => setTier((e.currentTarget as HTMLSelectElement).value as Tier)}>
              {tiers.map((t) => (
                <option key={t} value={t}>
                  {humanize(t)}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" disabled={pending || tier === partner.tier}>
            Change tier
          </button>
        </form>
        <div hidden={!can('support')}>
          <button type="button" class="secondary" disabled={pending} onClick={() => void rotate()}>
            Rotate webhook secret
          </button>
        </div>
      </div>
    </section>
  );
}
