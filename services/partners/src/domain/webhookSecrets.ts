import { randomBytes } from 'node:crypto';
import { seal, webhookSecretRecord } from '@esim/crypto';

/** `whsec_` + base64 of 32 random bytes, as the Standard Webhooks spec defines it. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** Stored sealed under the data key for this partner (associated data), so it opens for no other record; only the webhooks service opens it, to sign. */
export function sealWebhookSecret(dataKey: Buffer, partnerId: string, secret: string): string {
  return seal(dataKey, secret, webhookSecretRecord(partnerId));
}
