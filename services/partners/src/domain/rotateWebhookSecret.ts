import { withTransaction } from '@esim/postgres';
import { updatePartner } from '../store/partnerStore.js';
import type { PartnersDeps } from './deps.js';
import type { Actor } from './partner.js';
import { lockPartner } from './partnerLock.js';
import { requireKeyHolder } from './partnerRules.js';
import { audit, requestMail, webhookEndpointChanged } from './sideEffects.js';
import { generateWebhookSecret, sealWebhookSecret } from './webhookSecrets.js';

/** A new signing secret replaces the old one at once and is e-mailed. Answers when it was rotated. */
export function rotateWebhookSecret(deps: PartnersDeps, partnerId: string, actor: Actor): Promise<Date> {
  return withTransaction(deps.pool, async (db) => {
    const partner = await lockPartner(db, partnerId);
    requireKeyHolder(partner, 'rotate the webhook secret');
    const secret = generateWebhookSecret();
    await updatePartner(db, partnerId, { webhookSecretSealed: sealWebhookSecret(deps.dataKey, partnerId, secret) });
    // Before the mail: the relay publishes in order, so a partner reading the new secret finds it signing already.
    await webhookEndpointChanged(db, partnerId);
    await requestMail(db, deps.dataKey, {
      to: partner.email,
      template: 'webhook_secret_rotated',
      values: { name: partner.name },
      secrets: { webhookSecret: secret },
    });
    await audit(db, actor, 'webhook_secret.rotated', partnerId);
    return new Date();
  });
}
