import type { EventData } from '@esim/events';
import type { Queryable } from '@esim/postgres';
import { recordAuditEntry } from '../store/auditStore.js';

/**
 * Another service's operator action (a plan edit, a top-up) joins the log.
 * The entry id derives from the event id, so a redelivered event is written
 * once; `db` is the consumer's transaction, which also marks the event done.
 */
export function recordAuditEvent(db: Queryable, event: { id: string; data: EventData<'audit.recorded'> }): Promise<void> {
  const { action, target, operator, requestId, note, details, occurredAt } = event.data;
  // The X-Operator header rides along as `note`, as on the partners service's own entries (sideEffects.ts audit).
  const noted = note ? { ...details, note } : details;
  return recordAuditEntry(db, { id: event.id.replace(/^evt_/, 'aud_'), action, target, operator, requestId, details: noted, occurredAt });
}
