import { withTransaction } from '@esim/postgres';
import { listApiKeys } from '../store/keyStore.js';
import { updatePartner as updatePartnerRow } from '../store/partnerStore.js';
import type { AuditDetails } from './auditEntry.js';
import type { PartnersDeps } from './deps.js';
import type { Actor, Partner, PartnerChanges } from './partner.js';
import { lockPartner } from './partnerLock.js';
import { parseTier } from './partnerRules.js';
import { audit, credentialsChanged, webhookEndpointChanged } from './sideEffects.js';

/**
 * Changes the tier (operators) or the webhook URL (operators and the partner
 * itself; null clears it). Operator edits are audited; a partner editing its
 * own account (no actor) is not an operator action. A tier change reprices
 * the partner's keys, so their cached credentials are dropped.
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
    if (changes.webhookUrl !== undefined && changes.webhookUrl !== partner.webhookUrl) await webhookEndpointChanged(db, id);
    if (actor) await audit(db, actor, 'partner.updated', id, details);
    return updated;
  });
}
