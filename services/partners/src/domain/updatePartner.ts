import { withTransaction } from '@esim/postgres';
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
 */
export function updatePartner(
  deps: PartnersDeps,
  id: string,
  request: { tier?: string | undefined; webhookUrl?: string | null | undefined },
  actor: Actor | undefined,
): Promise<Partner> {
  const changes: PartnerChanges = {};
  const details: AuditDetails = {};
  if (request.tier !== undefined) changes.tier = details.tier = parseTier(request.tier);
  if (request.webhookUrl !== undefined) changes.webhookUrl = details.webhookUrl = request.webhookUrl;
  return withTransaction(deps.pool, async (db) => {
    const partner = await lockPartner(db, id);
    if (Object.keys(changes).length === 0) return partner;
    const updated = await updatePartnerRow(db, id, changes);
    if (changes.tier !== undefined && changes.tier !== partner.tier) {
      await credentialsChanged(db, id, (await listApiKeys(db, id)).map((k) => k.prefix));
    }
    const urlChanged = changes.webhookUrl !== undefined && changes.webhookUrl !== partner.webhookUrl;
    if (urlChanged) {
      await webhookEndpointChanged(db, id);
      const by = actor ?? partnerActor(id);
      await audit(db, by, 'partner.webhook_url_changed', id, { oldUrl: partner.webhookUrl, newUrl: updated.webhookUrl });
      await requestMail(db, deps.dataKey, {
        to: updated.email,
        template: 'webhook_url_changed',
        values: {
          name: updated.name,
          oldUrl: partner.webhookUrl ?? '(none)',
          newUrl: updated.webhookUrl ?? '(none)',
          changedBy: actor ? 'an operator' : 'you, from the partner portal',
        },
      });
    }
    if (actor) await audit(db, actor, 'partner.updated', id, details);
    return updated;
  });
}
