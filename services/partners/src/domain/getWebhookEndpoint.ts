import { AppError } from '@esim/errors';
import { livemodeOf, partnerIdOf } from '@esim/ids';
import { findPartner } from '../store/partnerStore.js';
import { findPreviousWebhookSecret } from '../store/webhookSecretStore.js';
import type { PartnersDeps } from './deps.js';

/** Added for the webhooks service (its helper's edit): where to deliver, and with what to sign. */
export interface WebhookEndpoint {
  /** Absent when the partner has set none. */
  url: string | undefined;
  /** The secret exactly as stored, sealed under the data key; '' before approval. Only the webhooks service opens it. */
  sealedSecret: string;
  status: string;
  /** Where a notice about the endpoint goes (auto-disable, §9). */
  email: string;
  /** During a rotation's overlap: the old secret, sealed, and when it stops signing. */
  previousSealedSecret?: string | undefined;
  previousSecretExpiresAt?: string | undefined;
}

/**
 * The webhooks service asks before every delivery attempt, so a changed URL
 * or a rotated secret applies to the very next attempt. The secret never
 * leaves this service in clear: it crosses gRPC sealed, as it rests.
 *
 * Asked with a test account id (`ptn_X_test`, §14), it answers the partner's
 * test webhook URL and test secret (sealed for that account id), with the
 * partner's status and e-mail; a test secret has no rotation overlap.
 */
export async function getWebhookEndpoint(deps: PartnersDeps, accountId: string): Promise<WebhookEndpoint> {
  const partnerId = partnerIdOf(accountId);
  const partner = await findPartner(deps.pool, partnerId);
  if (!partner) throw new AppError('PARTNER_NOT_FOUND', `No partner ${accountId}.`);
  if (!livemodeOf(accountId)) {
    return { url: partner.testWebhookUrl ?? undefined, sealedSecret: partner.testWebhookSecretSealed ?? '', status: partner.status, email: partner.email };
  }
  const previous = await findPreviousWebhookSecret(deps.pool, partnerId);
  return {
    url: partner.webhookUrl ?? undefined,
    sealedSecret: partner.webhookSecretSealed ?? '',
    status: partner.status,
    email: partner.email,
    previousSealedSecret: previous?.sealed,
    previousSecretExpiresAt: previous?.until.toISOString(),
  };
}
