import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM under the platform data key (DATA_ENCRYPTION_KEY). It protects
 * webhook secrets at rest and the secrets a mail request carries through the
 * outbox and JetStream; only their final reader (signer, mailer) opens them.
 *
 * Formats, each part base64:
 * - `v2.<iv>.<tag>.<ciphertext>`: sealed with associated data naming the
 *   record it belongs to (`webhook:<partnerId>`, `mail:<recipient>`), so a
 *   sealed value copied onto another record does not open (#24);
 * - `v1.<iv>.<tag>.<ciphertext>`: without associated data, as sealed before;
 *   still opened, and re-sealed as v2 where it rests (partners, at start).
 * The IV is 12 bytes and the tag exactly 16: a truncated tag (GCM accepts
 * 4 to 16 bytes unless told) is refused, never checked on fewer bits.
 */
const ivBytes = 12;
const tagBytes = 16;

export function seal(key: Buffer, plaintext: string, associatedData?: string): string {
  const iv = randomBytes(ivBytes);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: tagBytes });
  if (associatedData !== undefined) cipher.setAAD(Buffer.from(associatedData, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [associatedData === undefined ? 'v1' : 'v2', iv.toString('base64'), cipher.getAuthTag().toString('base64'), ciphertext.toString('base64')].join('.');
}

/** Opens a v1 or v2 value; a v2 value opens only with the associated data it was sealed with. */
export function open(key: Buffer, sealed: string, associatedData?: string): string {
  const [version, ivText, tagText, ciphertext] = sealed.split('.');
  if ((version !== 'v1' && version !== 'v2') || !ivText || !tagText || ciphertext === undefined) throw new Error('not a sealed value');
  if (version === 'v2' && associatedData === undefined) throw new Error('not a sealed value here: a v2 value needs the record it was sealed for');
  const iv = Buffer.from(ivText, 'base64');
  const tag = Buffer.from(tagText, 'base64');
  if (iv.length !== ivBytes || tag.length !== tagBytes) throw new Error('not a sealed value: the IV must be 12 bytes and the tag 16');
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: tagBytes });
  if (version === 'v2') decipher.setAAD(Buffer.from(associatedData!, 'utf8'));
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64')), decipher.final()]).toString('utf8');
}

/** True for a value sealed without associated data (v1), which the partners service re-seals. */
export function sealedWithoutRecord(sealed: string): boolean {
  return sealed.startsWith('v1.');
}

/** Parses DATA_ENCRYPTION_KEY: base64 of exactly 32 bytes. */
export function parseDataKey(base64: string): Buffer {
  const key = Buffer.from(base64, 'base64');
  if (key.length !== 32) throw new Error('DATA_ENCRYPTION_KEY must be base64 of 32 bytes');
  return key;
}

export function generateDataKey(): string {
  return randomBytes(32).toString('base64');
}

/** The associated data of a partner's webhook signing secret. */
export const webhookSecretRecord = (partnerId: string) => `webhook:${partnerId}`;

/** The associated data of a secret a mail request carries: its recipient. */
export const mailRecord = (to: string) => `mail:${to.toLowerCase()}`;
