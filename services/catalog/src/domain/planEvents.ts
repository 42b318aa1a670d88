import { enqueueEvent } from '@esim/events';
import type { Queryable } from '@esim/postgres';
import type { Plan } from './plan.js';

export interface AuditContext {
  operator: string;
  requestId: string;
  /** The free-text X-Operator header, recorded as the entry's note; never the actor. */
  note?: string;
}

/**
 * Announces a committed-together plan change: the audit entry (the partners
 * service keeps the log) and the cache invalidation every catalog replica
 * listens for. Called inside the transaction that changed the plan.
 */
export async function recordPlanChange(
  db: Queryable,
  change: { action: 'plan.created' | 'plan.updated'; plan: Plan; details: Record<string, unknown>; audit: AuditContext },
): Promise<void> {
  await enqueueEvent(db, 'catalog', 'audit.recorded', {
    action: change.action,
    target: change.plan.id,
    operator: change.audit.operator,
    requestId: change.audit.requestId,
    note: change.audit.note ?? '',
    // Plans hold no secrets, so every changed field is logged with its new value.
    details: change.details,
    occurredAt: new Date().toISOString(),
  });
  await enqueueEvent(db, 'catalog', 'catalog.plan.changed', { planId: change.plan.id, active: change.plan.active });
}
