import { AppError } from '@esim/errors';
import { withTransaction } from '@esim/postgres';
import { findApiKey, revokeApiKey as revokeApiKeyRow } from '../store/keyStore.js';
import type { PartnersDeps } from './deps.js';
import type { Actor, ApiKey } from './partner.js';
import { lockPartner } from './partnerLock.js';
import { audit, credentialsChanged } from './sideEffects.js';

/** Revoking twice is harmless and answers the key as it is; the gateway's cached credential is dropped. */
export function revokeApiKey(deps: PartnersDeps, partnerId: string, keyId: string, actor: Actor): Promise<ApiKey> {
  return withTransaction(deps.pool, async (db) => {
    await lockPartner(db, partnerId);
    const existing = await findApiKey(db, partnerId, keyId);
    if (!existing) throw new AppError('NOT_FOUND', `No key ${keyId} for partner ${partnerId}.`);
    if (existing.revokedAt) return existing;
    const revoked = await revokeApiKeyRow(db, keyId);
    await credentialsChanged(db, partnerId, [revoked.prefix]);
    await audit(db, actor, 'api_key.revoked', partnerId, { keyId, prefix: revoked.prefix });
    return revoked;
  });
}
