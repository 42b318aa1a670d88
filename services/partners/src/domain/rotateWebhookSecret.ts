import { validationError } from '@esim/errors';
import { withTransaction } from '@esim/postgres';
import { replaceWebhookSecret } from '../store/webhookSecretStore.js';
import type { PartnersDeps } from './deps.js';
import type { Actor } from './partner.js';
import { lockPartner } from './partnerLock.js';
import { requireKeyHolder } from './partnerRules.js';
import { audit, requestMail, webhookEndpointChanged } from './sideEffects.js';
import { generateWebhookSecret, sealWebhookSecret } from './webhookSecrets.js';

/** §9: hours the old secret keeps signing beside the new one unless the operator says otherwise. */
export const defaultOverlapHours = 24;

/**
 * A new signing secret replaces the old one and is e-mailed; the old one
 * keeps signing beside it for `overlapHours` (0–72, default 24), so the
 * partner can redeploy its receiver without a gap (§9). Answers when it was
 * rotated and the new secret, sealed (the webhooks service shows it once to
 * a partner rotating its primary endpoint).
 */
export function rotateWebhookSecret(
  deps: PartnersDeps,
  partnerId: string,
  actor: Actor,
  overlapHours: number = defaultOverlapHours,
): Promise<{ rotatedAt: Date; sealedSecret: string }> {
  if (!Number.isInteger(overlapHours) || overlapHours < 0 || overlapHours > 72) {
    throw validationError([{ path: 'overlapHours', message: 'must be an integer from 0 to 72' }]);
  }
  return withTransaction(deps.pool, async (db) => {
    const partner = await lockPartner(db, partnerId);
    requireKeyHolder(partner, 'rotate the webhook secret');
    const secret = generateWebhookSecret();
    const sealedSecret = sealWebhookSecret(deps.dataKey, partnerId, secret);
    await replaceWebhookSecret(db, partnerId, sealedSecret, overlapHours * 3_600_000);
    // Before the mail: the relay publishes in order, so a partner reading the new secret finds it signing already.
    await webhookEndpointChanged(db, partnerId);
    await requestMail(db, deps.dataKey, {
      to: partner.email,
      template: 'webhook_secret_rotated',
      values: { name: partner.name },
      secrets: { webhookSecret: secret },
    });
    await audit(db, actor, 'webhook_secret.rotated', partnerId, { overlapHours });
    return { rotatedAt: new Date(), sealedSecret };
  });
}
