import { AppError } from '@esim/errors';
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
 */
export async function getWebhookEndpoint(deps: PartnersDeps, partnerId: string): Promise<WebhookEndpoint> {
  const partner = await findPartner(deps.pool, partnerId);
  if (!partner) throw new AppError('PARTNER_NOT_FOUND', `No partner ${partnerId}.`);
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
