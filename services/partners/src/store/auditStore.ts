import type { Queryable } from '@esim/postgres';
import type { AuditEntry } from '../domain/auditEntry.js';
import { toAuditEntry, type AuditRow } from './rows.js';

/** An entry as written: other services' details are any JSON object, narrowed when read back. */
export interface NewAuditEntry {
  id: string;
  action: string;
  target: string;
  operator: string;
  requestId: string;
  details: Record<string, unknown>;
  occurredAt: string;
}

/** Idempotent by id: the audit consumer may see an event twice, the log keeps it once. */
export async function recordAuditEntry(db: Queryable, entry: NewAuditEntry): Promise<void> {
  await db.query(
    `INSERT INTO partners.audit_log (id, action, target, operator, request_id, details, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING`,
    [entry.id, entry.action, entry.target, entry.operator, entry.requestId, JSON.stringify(entry.details), entry.occurredAt],
  );
}

export async function listAuditEntries(db: Queryable, page: { limit: number; offset: number }): Promise<{ entries: AuditEntry[]; total: number }> {
  const [rows, count] = await Promise.all([
    // The operator's e-mail comes from the account the entry names, so entries other services publish (with the id only) show it too.
    db.query<AuditRow>(
      `SELECT a.*, o.email AS operator_email FROM partners.audit_log a LEFT JOIN partners.operators o ON o.id = a.operator
       ORDER BY a.created_at DESC, a.id DESC LIMIT $1 OFFSET $2`,
      [page.limit, page.offset],
    ),
    db.query<{ n: number }>('SELECT count(*)::int AS n FROM partners.audit_log'),
  ]);
  return { entries: rows.rows.map(toAuditEntry), total: count.rows[0]?.n ?? 0 };
}
