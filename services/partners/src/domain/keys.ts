import { open, seal } from '@esim/crypto';
import { AppError } from '@esim/errors';
import { newId } from '@esim/ids';
import { withTransaction, type PoolClient } from '@esim/postgres';
import { findApiKey, findCredentialByPrefix, insertApiKey, revokeApiKey } from '../store/keyStore.js';
import { updatePartner } from '../store/partnerStore.js';
import type { ApiKeyRow, PartnerRow } from '../store/rows.js';
import type { Actor, PartnersDeps } from './deps.js';
import { generateApiKey, generateWebhookSecret } from './credentials.js';
import { lockPartner } from './partnerLock.js';
import { audit, credentialsChanged, requestMail } from './sideEffects.js';

export function sealWebhookSecret(dataKey: Buffer, secret: string): string {
  return seal(dataKey, secret);
}

export function openWebhookSecret(dataKey: Buffer, sealed: string): string {
  return open(dataKey, sealed);
}

/** Creates a key row; the full key exists only in the returned value, for the e-mail. */
export async function issueKeyIn(db: PoolClient, partnerId: string, scopes: string[]): Promise<{ key: string; row: ApiKeyRow }> {
  const { key, prefix, secretHash } = generateApiKey();
  const row = await insertApiKey(db, { id: newId('key'), partner_id: partnerId, prefix, secret_hash: secretHash, scopes });
  return { key, row };
}

const keyHolders: PartnerRow['status'][] = ['approved', 'suspended'];

function requireKeyHolder(partner: PartnerRow, action: string): void {
  if (!keyHolders.includes(partner.status)) {
    throw new AppError('INVALID_STATE', `Cannot ${action} for a partner that is ${partner.status}.`);
  }
}

/** An operator issues a further key with chosen scopes; it is e-mailed and never shown again. */
export function issueKey(deps: PartnersDeps, partnerId: string, scopes: string[], actor: Actor): Promise<ApiKeyRow> {
  return withTransaction(deps.pool, async (db) => {
    const partner = await lockPartner(db, partnerId);
    requireKeyHolder(partner, 'issue a key');
    const { key, row } = await issueKeyIn(db, partnerId, scopes);
    await requestMail(db, deps.dataKey, {
      to: partner.email,
      template: 'api_key_issued',
      values: { name: partner.name, scopes: scopes.join(', '), keyPrefix: row.prefix },
      secrets: { apiKey: key },
    });
    await audit(db, actor, 'api_key.issued', partnerId, { keyId: row.id, prefix: row.prefix, scopes });
    return row;
  });
}

/** Revoking twice is harmless and answers the key as it is. */
export function revokeKey(deps: PartnersDeps, partnerId: string, keyId: string, actor: Actor): Promise<ApiKeyRow> {
  return withTransaction(deps.pool, async (db) => {
    await lockPartner(db, partnerId);
    const existing = await findApiKey(db, partnerId, keyId);
    if (!existing) throw new AppError('NOT_FOUND', `No key ${keyId} for partner ${partnerId}.`);
    if (existing.revoked_at) return existing;
    const revoked = await revokeApiKey(db, keyId);
    await credentialsChanged(db, partnerId, [revoked.prefix]);
    await audit(db, actor, 'api_key.revoked', partnerId, { keyId, prefix: revoked.prefix });
    return revoked;
  });
}

/** A new signing secret replaces the old one at once and is e-mailed. */
export function rotateWebhookSecret(deps: PartnersDeps, partnerId: string, actor: Actor): Promise<Date> {
  return withTransaction(deps.pool, async (db) => {
    const partner = await lockPartner(db, partnerId);
    requireKeyHolder(partner, 'rotate the webhook secret');
    const secret = generateWebhookSecret();
    await updatePartner(db, partnerId, { webhook_secret_sealed: sealWebhookSecret(deps.dataKey, secret) });
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

export async function lookupCredential(deps: PartnersDeps, prefix: string) {
  const credential = await findCredentialByPrefix(deps.pool, prefix);
  if (!credential) throw new AppError('NOT_FOUND', 'No such key.');
  return credential;
}
