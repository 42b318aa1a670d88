import { AppError } from '@esim/errors';
import { withTransaction } from '@esim/postgres';
import { scopes } from '@esim/vocabulary';
import { countActiveTestKeys, findApiKey, revokeApiKey as revokeApiKeyRow } from '../store/keyStore.js';
import type { PartnersDeps } from './deps.js';
import { issueKeyIn } from './issueApiKey.js';
import { partnerActor, type ApiKey } from './partner.js';
import { lockPartner } from './partnerLock.js';
import { maxActiveTestKeys, requireTestModeHolder } from './partnerRules.js';
import { audit, credentialsChanged } from './sideEffects.js';

/**
 * A partner issues itself a test key (§14) from the portal: all four scopes,
 * the full key in the answer only (stored hashed like a live key, never
 * e-mailed). Counted under the partner's row lock, so concurrent requests
 * cannot hold more than `maxActiveTestKeys` unrevoked keys; one more is
 * INVALID_STATE (the account's state refuses it; revoking one lifts it).
 */
export function issueTestKey(deps: PartnersDeps, partnerId: string, requestId: string): Promise<{ key: string; apiKey: ApiKey }> {
  return withTransaction(deps.pool, async (db) => {
    const partner = await lockPartner(db, partnerId);
    requireTestModeHolder(partner);
    if ((await countActiveTestKeys(db, partnerId)) >= maxActiveTestKeys) {
      throw new AppError('INVALID_STATE', `At most ${maxActiveTestKeys} test keys can be active; revoke one first.`);
    }
    const issued = await issueKeyIn(db, partnerId, [...scopes], false);
    await audit(db, partnerActor(partnerId, requestId), 'test_key.issued', partnerId, { keyId: issued.apiKey.id, prefix: issued.apiKey.prefix });
    return issued;
  });
}

/**
 * Revokes one of the partner's test keys; a live key's id (the portal cannot
 * revoke those) or an unknown one is NOT_FOUND. Twice is harmless. The
 * gateway's cached credential is evicted on every replica, the live keys'
 * path, so the key stops within 2 s (§4).
 */
export function revokeTestKey(deps: PartnersDeps, partnerId: string, keyId: string, requestId: string): Promise<ApiKey> {
  return withTransaction(deps.pool, async (db) => {
    const partner = await lockPartner(db, partnerId);
    requireTestModeHolder(partner);
    const existing = await findApiKey(db, partnerId, keyId);
    if (!existing || existing.livemode) throw new AppError('NOT_FOUND', `No test key ${keyId}.`);
    if (existing.revokedAt) return existing;
    const revoked = await revokeApiKeyRow(db, keyId);
    await credentialsChanged(db, partnerId, [revoked.prefix]);
    await audit(db, partnerActor(partnerId, requestId), 'test_key.revoked', partnerId, { keyId, prefix: revoked.prefix });
    return revoked;
  });
}
