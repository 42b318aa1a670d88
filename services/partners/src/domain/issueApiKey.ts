import { generateKey, hashSecret } from '@esim/api-keys';
import { newId } from '@esim/ids';
import { withTransaction, type Queryable } from '@esim/postgres';
import type { Scope } from '@esim/vocabulary';
import { insertApiKey } from '../store/keyStore.js';
import type { PartnersDeps } from './deps.js';
import type { Actor, ApiKey } from './partner.js';
import { lockPartner } from './partnerLock.js';
import { parseScopes, requireKeyHolder } from './partnerRules.js';
import { audit, requestMail } from './sideEffects.js';

/**
 * Creates a key row in the caller's transaction; the full key exists only in
 * the returned value, for the e-mail (live) or the one answer (test, §14).
 */
export async function issueKeyIn(db: Queryable, partnerId: string, scopes: Scope[], livemode = true): Promise<{ key: string; apiKey: ApiKey }> {
  const { key, prefix, secret } = generateKey(livemode);
  const apiKey = await insertApiKey(db, { id: newId('key'), partnerId, prefix, secretHash: hashSecret(secret), scopes, livemode });
  return { key, apiKey };
}

/** An operator issues a further key with chosen scopes; it is e-mailed and never shown again. */
export function issueApiKey(deps: PartnersDeps, partnerId: string, requestedScopes: string[], actor: Actor): Promise<ApiKey> {
  const scopes = parseScopes(requestedScopes);
  return withTransaction(deps.pool, async (db) => {
    const partner = await lockPartner(db, partnerId);
    requireKeyHolder(partner, 'issue a key');
    const { key, apiKey } = await issueKeyIn(db, partnerId, scopes);
    await requestMail(db, deps.dataKey, {
      to: partner.email,
      template: 'api_key_issued',
      values: { name: partner.name, scopes: scopes.join(', '), keyPrefix: apiKey.prefix },
      secrets: { apiKey: key },
    });
    await audit(db, actor, 'api_key.issued', partnerId, { keyId: apiKey.id, prefix: apiKey.prefix, scopes });
    return apiKey;
  });
}
