import { createHash, randomBytes, randomInt } from 'node:crypto';

export const allScopes = ['catalog:read', 'orders:write', 'orders:read', 'wallet:read'] as const;

const lower = 'abcdefghijklmnopqrstuvwxyz0123456789';
const mixed = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function randomString(alphabet: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

/** SHA-256 is right here: the secret has ~238 bits of entropy, so no stretching is needed. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** `sk_live_<12 [a-z0-9]>_<40 [A-Za-z0-9]>`: the prefix is the public lookup id. */
export function generateApiKey(): { key: string; prefix: string; secretHash: string } {
  const prefix = randomString(lower, 12);
  const secret = randomString(mixed, 40);
  return { key: `sk_live_${prefix}_${secret}`, prefix, secretHash: hashSecret(secret) };
}

/** `whsec_` + base64 of 32 random bytes, as the Standard Webhooks spec defines it. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}
