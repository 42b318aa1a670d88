import { listApiKeys as selectApiKeys } from '../store/keyStore.js';
import { findPartner } from '../store/partnerStore.js';
import type { PartnersDeps } from './deps.js';
import type { ApiKey } from './partner.js';
import { partnerNotFound } from './partnerRules.js';

/** A partner's keys, oldest first; an unknown partner is PARTNER_NOT_FOUND rather than an empty list. */
export async function listApiKeys(deps: PartnersDeps, partnerId: string): Promise<ApiKey[]> {
  if (!(await findPartner(deps.pool, partnerId))) throw partnerNotFound(partnerId);
  return selectApiKeys(deps.pool, partnerId);
}
