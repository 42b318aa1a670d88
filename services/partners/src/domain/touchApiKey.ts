import { touchApiKey as touchApiKeyRow } from '../store/keyStore.js';
import type { PartnersDeps } from './deps.js';

/**
 * Records that a key was used. The gateway calls this at most once a minute
 * per key and the store writes at most once a minute, so `lastUsedAt` is
 * exact to the minute whatever the traffic; an unknown key id changes nothing.
 */
export function touchApiKey(deps: PartnersDeps, keyId: string): Promise<void> {
  return touchApiKeyRow(deps.pool, keyId);
}
