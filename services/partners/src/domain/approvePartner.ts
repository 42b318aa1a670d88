import { AppError } from '@esim/errors';
import { scopes } from '@esim/vocabulary';
import { withTransaction } from '@esim/postgres';
import { listApiKeys } from '../store/keyStore.js';
import { updatePartner } from '../store/partnerStore.js';
import type { PartnersDeps } from './deps.js';
import { issueKeyIn } from './issueApiKey.js';
import type { Actor, Partner } from './partner.js';
import { lockPartner } from './partnerLock.js';
import { parseTier, requireStatus } from './partnerRules.js';
import { audit, credentialsChanged, requestMail, webhookEndpointChanged } from './sideEffects.js';
import { generateWebhookSecret, sealWebhookSecret } from './webhookSecrets.js';

/**
 * pending → approved: the first API key (all scopes) and the webhook signing
 * secret are created and e-mailed in one message, in the same transaction.
 * An absent tier keeps the partner's (standard since registration). An
 * application whose e-mail is not proved yet is EMAIL_NOT_VERIFIED (§4).
 */
export function approvePartner(deps: PartnersDeps, id: string, tier: string | undefined, actor: Actor): Promise<Partner> {
  const newTier = tier === undefined ? undefined : parseTier(tier);
  return withTransaction(deps.pool, async (db) => {
    const partner = await lockPartner(db, id);
    requireStatus(partner, ['pending'], 'approve');
    if (partner.emailVerifiedAt === null) {
      throw new AppError('EMAIL_NOT_VERIFIED', `The applicant has not verified ${partner.email} yet; approval waits for it.`);
    }
    const webhookSecret = generateWebhookSecret();
    const approved = await updatePartner(db, id, {
      status: 'approved',
      tier: newTier ?? partner.tier,
      webhookSecretSealed: sealWebhookSecret(deps.dataKey, id, webhookSecret),
    });
    await webhookEndpointChanged(db, id);
    // Test keys issued while pending (§14) now price at the approved tier.
    await credentialsChanged(db, id, (await listApiKeys(db, id)).map((k) => k.prefix));
    const { key, apiKey } = await issueKeyIn(db, id, [...scopes]);
    await requestMail(db, deps.dataKey, {
      to: approved.email,
      template: 'partner_approved',
      values: { name: approved.name, tier: approved.tier, keyPrefix: apiKey.prefix },
      secrets: { apiKey: key, webhookSecret },
    });
    await audit(db, actor, 'partner.approved', id, { tier: approved.tier, keyId: apiKey.id });
    return approved;
  });
}
