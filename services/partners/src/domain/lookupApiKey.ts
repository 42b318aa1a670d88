import { AppError } from '@esim/errors';
import { findCredentialByPrefix } from '../store/keyStore.js';
import type { PartnersDeps } from './deps.js';
import type { KeyCredential } from './partner.js';

/** The gateway verifies a key with this: the secret's hash, never the secret. Unknown prefixes are NOT_FOUND. */
export async function lookupApiKey(deps: PartnersDeps, prefix: string): Promise<KeyCredential> {
  const credential = await findCredentialByPrefix(deps.pool, prefix);
  if (!credential) throw new AppError('NOT_FOUND', 'No such key.');
  return credential;
}
