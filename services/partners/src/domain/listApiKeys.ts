import { listApiKeys as selectApiKeys } from '../store/keyStore.js';
import { findPartner } from '../store/partnerStore.js';
import type { PartnersDeps } from './deps.js';
import type { ApiKey } from './partner.js';
import { partnerNotFound } from './partnerRules.js';

/**
 * A partner's live keys, oldest first (the operators' key list); its test
 * keys are the partner's own, listed by GET /partner/me. An unknown partner
 * is PARTNER_NOT_FOUND rather than an empty list.
 */
export async function listApiKeys(deps: PartnersDeps, partnerId: string): Promise<ApiKey[]> {
  if (!(await findPartner(deps.pool, partnerId))) throw partnerNotFound(partnerId);
  return (await selectApiKeys(deps.pool, partnerId)).filter((k) => k.livemode);
}
