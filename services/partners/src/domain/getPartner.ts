import { findPartner } from '../store/partnerStore.js';
import { listApiKeys } from '../store/keyStore.js';
import type { PartnersDeps } from './deps.js';
import type { ApiKey, Partner } from './partner.js';
import { partnerNotFound } from './partnerRules.js';

/** A partner with its keys' metadata, for the portal and for operators. */
export async function getPartner(deps: PartnersDeps, id: string): Promise<{ partner: Partner; apiKeys: ApiKey[] }> {
  const partner = await findPartner(deps.pool, id);
  if (!partner) throw partnerNotFound(id);
  return { partner, apiKeys: await listApiKeys(deps.pool, id) };
}
