import { pageWindow } from '@esim/postgres';
import { listAuditEntries as selectAuditEntries } from '../store/auditStore.js';
import type { AuditEntry } from './auditEntry.js';
import type { PartnersDeps } from './deps.js';

/** Every operator action on the platform (this service's and others'), newest first. */
export function listAuditEntries(deps: PartnersDeps, page: { page: number; limit: number } | undefined): Promise<{ entries: AuditEntry[]; total: number }> {
  return selectAuditEntries(deps.pool, pageWindow(page, 20));
}
