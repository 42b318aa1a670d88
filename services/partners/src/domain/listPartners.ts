import { pageWindow } from '@esim/postgres';
import { listPartners as selectPartners } from '../store/partnerStore.js';
import type { PartnersDeps } from './deps.js';
import type { Partner } from './partner.js';
import { parseStatusFilter } from './partnerRules.js';

/** Applications and partners for operators, newest first; '' lists every status. */
export function listPartners(
  deps: PartnersDeps,
  request: { status: string; page?: { page: number; limit: number } | undefined },
): Promise<{ partners: Partner[]; total: number }> {
  return selectPartners(deps.pool, { status: parseStatusFilter(request.status), ...pageWindow(request.page, 20) });
}
