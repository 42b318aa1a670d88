import { AppError } from '@esim/errors';
import { withTransaction } from '@esim/postgres';
import { listApiKeys } from '../store/keyStore.js';
import { updatePartner } from '../store/partnerStore.js';
import type { PartnerRow } from '../store/rows.js';
import type { Actor, PartnersDeps } from './deps.js';
import { issueKeyIn, sealWebhookSecret } from './keys.js';
import { allScopes, generateWebhookSecret } from './credentials.js';
import { lockPartner } from './partnerLock.js';
import { audit, credentialsChanged, requestMail } from './sideEffects.js';

type Tier = PartnerRow['tier'];
type Status = PartnerRow['status'];

function requireStatus(partner: PartnerRow, allowed: Status[], action: string): void {
  if (!allowed.includes(partner.status)) {
    throw new AppError('INVALID_STATE', `Cannot ${action} a partner that is ${partner.status}.`);
  }
}

/**
 * pending → approved: the first API key (all scopes) and the webhook signing
 * secret are created and e-mailed in one message, in the same transaction.
 */
export function approve(deps: PartnersDeps, id: string, tier: Tier | undefined, actor: Actor): Promise<PartnerRow> {
  return withTransaction(deps.pool, async (db) => {
    const partner = await lockPartner(db, id);
    requireStatus(partner, ['pending'], 'approve');
    const webhookSecret = generateWebhookSecret();
    const approved = await updatePartner(db, id, {
      status: 'approved',
      tier: tier ?? partner.tier,
      webhook_secret_sealed: sealWebhookSecret(deps.dataKey, webhookSecret),
    });
    const { key, row } = await issueKeyIn(db, id, [...allScopes]);
    await requestMail(db, deps.dataKey, {
      to: approved.email,
      template: 'partner_approved',
      values: { name: approved.name, tier: approved.tier, keyPrefix: row.prefix },
      secrets: { apiKey: key, webhookSecret },
    });
    await audit(db, actor, 'partner.approved', id, { tier: approved.tier, keyId: row.id });
    return approved;
  });
}

export function reject(deps: PartnersDeps, id: string, reason: string, actor: Actor): Promise<PartnerRow> {
  return withTransaction(deps.pool, async (db) => {
    const partner = await lockPartner(db, id);
    requireStatus(partner, ['pending'], 'reject');
    const rejected = await updatePartner(db, id, { status: 'rejected', rejection_reason: reason });
    await requestMail(db, deps.dataKey, { to: rejected.email, template: 'partner_rejected', values: { name: rejected.name, reason } });
    await audit(db, actor, 'partner.rejected', id, { reason });
    return rejected;
  });
}

/** approved ⇄ suspended. The gateway's cached credentials are dropped so keys answer 403 at once. */
export function setSuspended(deps: PartnersDeps, id: string, suspended: boolean, actor: Actor): Promise<PartnerRow> {
  return withTransaction(deps.pool, async (db) => {
    const partner = await lockPartner(db, id);
    requireStatus(partner, suspended ? ['approved'] : ['suspended'], suspended ? 'suspend' : 'reinstate');
    const updated = await updatePartner(db, id, { status: suspended ? 'suspended' : 'approved' });
    await credentialsChanged(db, id, (await listApiKeys(db, id)).map((k) => k.prefix));
    await audit(db, actor, suspended ? 'partner.suspended' : 'partner.reinstated', id);
    return updated;
  });
}

/** Operator edits (tier, webhook URL) are audited; a partner editing its own webhook URL is not an operator action. */
export function updateAccount(
  deps: PartnersDeps,
  id: string,
  changes: { tier?: Tier | undefined; webhookUrl?: string | null | undefined },
  actor: Actor | undefined,
): Promise<PartnerRow> {
  return withTransaction(deps.pool, async (db) => {
    const partner = await lockPartner(db, id);
    const update: Parameters<typeof updatePartner>[2] = {};
    if (changes.tier !== undefined) update.tier = changes.tier;
    if (changes.webhookUrl !== undefined) update.webhook_url = changes.webhookUrl;
    if (Object.keys(update).length === 0) return partner;
    const updated = await updatePartner(db, id, update);
    if (changes.tier !== undefined && changes.tier !== partner.tier) {
      await credentialsChanged(db, id, (await listApiKeys(db, id)).map((k) => k.prefix));
    }
    if (actor) await audit(db, actor, 'partner.updated', id, { ...changes });
    return updated;
  });
}
