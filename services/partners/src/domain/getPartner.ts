import { findPartner } from '../store/partnerStore.js';
import { listApiKeys } from '../store/keyStore.js';
import type { PartnersDeps } from './deps.js';
import type { ApiKey, Partner } from './partner.js';
import { partnerNotFound } from './partnerRules.js';

/** A partner with its keys' metadata, live and test apart (§14), for the portal and for operators. */
export async function getPartner(deps: PartnersDeps, id: string): Promise<{ partner: Partner; apiKeys: ApiKey[]; testKeys: ApiKey[] }> {
  const partner = await findPartner(deps.pool, id);
  if (!partner) throw partnerNotFound(id);
  const keys = await listApiKeys(deps.pool, id);
  return { partner, apiKeys: keys.filter((k) => k.livemode), testKeys: keys.filter((k) => !k.livemode) };
}
