import { accountIdOf } from '@esim/ids';
import { withTransaction, type PoolClient } from '@esim/postgres';
import { listApiKeys } from '../store/keyStore.js';
import { updatePartner as updatePartnerRow } from '../store/partnerStore.js';
import type { AuditDetails } from './auditEntry.js';
import type { PartnersDeps } from './deps.js';
import { partnerActor, type Actor, type Partner, type PartnerChanges } from './partner.js';
import { lockPartner } from './partnerLock.js';
import { parseTier } from './partnerRules.js';
import { audit, credentialsChanged, requestMail, webhookEndpointChanged } from './sideEffects.js';

/**
 * Changes the tier (operators) or the webhook URL (operators and the partner
 * itself; null clears it). Operator edits are audited. A webhook URL change,
 * by anyone, is audited with the old and new URL and e-mailed to the partner
 * at once (§4): the stream carries activation codes and customers' contact
 * details, so a partner must learn of a redirection it did not make. A tier
 * change reprices the partner's keys, so their cached credentials are dropped.
 * The test webhook URL (§14) follows the same rules, announced for the test
 * account (`ptn_…_test`) so the webhooks service reloads that endpoint only.
 */
export function updatePartner(
  deps: PartnersDeps,
  id: string,
  request: { tier?: string | undefined; webhookUrl?: string | null | undefined; testWebhookUrl?: string | null | undefined },
  actor: Actor | undefined,
): Promise<Partner> {
  const changes: PartnerChanges = {};
  const details: AuditDetails = {};
  if (request.tier !== undefined) changes.tier = details.tier = parseTier(request.tier);
  if (request.webhookUrl !== undefined) changes.webhookUrl = details.webhookUrl = request.webhookUrl;
  if (request.testWebhookUrl !== undefined) changes.testWebhookUrl = details.testWebhookUrl = request.testWebhookUrl;
  return withTransaction(deps.pool, async (db) => {
    const partner = await lockPartner(db, id);
    if (Object.keys(changes).length === 0) return partner;
    const updated = await updatePartnerRow(db, id, changes);
    if (changes.tier !== undefined && changes.tier !== partner.tier) {
      await credentialsChanged(db, id, (await listApiKeys(db, id)).map((k) => k.prefix));
    }
    if (changes.webhookUrl !== undefined && changes.webhookUrl !== partner.webhookUrl) {
      await announceUrlChange(deps, db, { accountId: id, action: 'partner.webhook_url_changed', which: '' }, partner, updated.webhookUrl, actor);
    }
    if (changes.testWebhookUrl !== undefined && changes.testWebhookUrl !== partner.testWebhookUrl) {
      const change = { accountId: accountIdOf(id, false), action: 'partner.test_webhook_url_changed', which: ' (test mode)' };
      await announceUrlChange(deps, db, change, { ...partner, webhookUrl: partner.testWebhookUrl }, updated.testWebhookUrl, actor);
    }
    if (actor) await audit(db, actor, 'partner.updated', id, details);
    return updated;
  });
}

/** A webhook URL change of either mode: the webhooks service reloads that account's endpoint, the audit log and the partner learn of it. */
async function announceUrlChange(
  deps: PartnersDeps,
  db: PoolClient,
  change: { accountId: string; action: string; which: string },
  before: Partner,
  newUrl: string | null,
  actor: Actor | undefined,
): Promise<void> {
  await webhookEndpointChanged(db, change.accountId);
  await audit(db, actor ?? partnerActor(before.id), change.action, before.id, { oldUrl: before.webhookUrl, newUrl });
  await requestMail(db, deps.dataKey, {
    to: before.email,
    template: 'webhook_url_changed',
    values: {
      name: before.name,
      oldUrl: `${before.webhookUrl ?? '(none)'}${change.which}`,
      newUrl: `${newUrl ?? '(none)'}${change.which}`,
      changedBy: actor ? 'an operator' : 'you, from the partner portal',
    },
  });
}
