import type { EventData } from '@esim/events';
import type { Queryable } from '@esim/postgres';
import type { AuditRow } from './rows.js';

/** Idempotent by id: the audit consumer may see an event twice, the log keeps it once. */
export async function recordAuditEntry(db: Queryable, id: string, entry: EventData<'audit.recorded'>): Promise<void> {
  await db.query(
    `INSERT INTO partners.audit_log (id, action, target, operator, request_id, details, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING`,
    [id, entry.action, entry.target, entry.operator, entry.requestId, JSON.stringify(entry.details), entry.occurredAt],
  );
}

export async function listAuditEntries(db: Queryable, page: { limit: number; offset: number }): Promise<{ rows: AuditRow[]; total: number }> {
  const [rows, count] = await Promise.all([
    db.query<AuditRow>('SELECT * FROM partners.audit_log ORDER BY created_at DESC, id DESC LIMIT $1 OFFSET $2', [page.limit, page.offset]),
    db.query<{ n: number }>('SELECT count(*)::int AS n FROM partners.audit_log'),
  ]);
  return { rows: rows.rows, total: count.rows[0]?.n ?? 0 };
}
