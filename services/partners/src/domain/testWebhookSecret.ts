import { accountIdOf } from '@esim/ids';
import { withTransaction } from '@esim/postgres';
import { updatePartner } from '../store/partnerStore.js';
import type { PartnersDeps } from './deps.js';
import { partnerActor } from './partner.js';
import { lockPartner } from './partnerLock.js';
import { requireTestModeHolder } from './partnerRules.js';
import { audit, webhookEndpointChanged } from './sideEffects.js';
import { generateWebhookSecret, sealWebhookSecret } from './webhookSecrets.js';

/**
 * A new test webhook signing secret (§14), replacing the previous one at
 * once (no overlap: test traffic needs none). Sealed for the test account
 * (associated data `webhook:ptn_…_test`), so it never opens as the live
 * secret; answered in clear once, for the portal to show. The webhooks
 * service learns of it through `partners.webhook_endpoint.changed` naming
 * the test account, published in the same transaction.
 */
export function rotateTestWebhookSecret(deps: PartnersDeps, partnerId: string, requestId: string): Promise<{ secret: string; rotatedAt: Date }> {
  return withTransaction(deps.pool, async (db) => {
    const partner = await lockPartner(db, partnerId);
    requireTestModeHolder(partner);
    const testAccount = accountIdOf(partnerId, false);
    const secret = generateWebhookSecret();
    await updatePartner(db, partnerId, { testWebhookSecretSealed: sealWebhookSecret(deps.dataKey, testAccount, secret) });
    await webhookEndpointChanged(db, testAccount);
    await audit(db, partnerActor(partnerId, requestId), 'test_webhook_secret.rotated', partnerId);
    return { secret, rotatedAt: new Date() };
  });
}
