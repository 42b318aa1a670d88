import type { Queryable } from '@esim/postgres';
import type { OperatorRole } from '@esim/vocabulary';
import type { Operator, OperatorCredential } from '../domain/operator.js';

interface OperatorRow {
  id: string;
  email: string;
  name: string;
  role: OperatorRole;
  prefix: string;
  secret_hash: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

const toOperator = (row: OperatorRow): Operator => ({
  id: row.id,
  email: row.email,
  name: row.name,
  role: row.role,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
  revokedAt: row.revoked_at,
});

/** SQL for partners.operators; the token's secret is never stored, only its hash. */
export async function insertOperator(
  db: Queryable,
  operator: { id: string; email: string; name: string; role: OperatorRole; prefix: string; secretHash: string },
): Promise<Operator> {
  const { rows } = await db.query<OperatorRow>(
    `INSERT INTO partners.operators (id, email, name, role, prefix, secret_hash) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
    [operator.id, operator.email, operator.name, operator.role, operator.prefix, operator.secretHash],
  );
  return toOperator(rows[0]!);
}

export async function findOperator(db: Queryable, id: string, options: { forUpdate?: boolean } = {}): Promise<Operator | undefined> {
  const { rows } = await db.query<OperatorRow>(`SELECT * FROM partners.operators WHERE id = $1${options.forUpdate ? ' FOR UPDATE' : ''}`, [id]);
  return rows[0] ? toOperator(rows[0]) : undefined;
}

export async function listOperators(db: Queryable, page: { limit: number; offset: number }): Promise<{ operators: Operator[]; total: number }> {
  const [rows, count] = await Promise.all([
    db.query<OperatorRow>('SELECT * FROM partners.operators ORDER BY created_at DESC, id DESC LIMIT $1 OFFSET $2', [page.limit, page.offset]),
    db.query<{ n: number }>('SELECT count(*)::int AS n FROM partners.operators'),
  ]);
  return { operators: rows.rows.map(toOperator), total: count.rows[0]?.n ?? 0 };
}

export async function setOperator(db: Queryable, id: string, change: { role?: OperatorRole; revoke?: boolean }): Promise<Operator> {
  const { rows } = await db.query<OperatorRow>(
    `UPDATE partners.operators SET role = coalesce($2, role), revoked_at = CASE WHEN $3 THEN coalesce(revoked_at, now()) ELSE revoked_at END
     WHERE id = $1 RETURNING *`,
    [id, change.role ?? null, change.revoke ?? false],
  );
  return toOperator(rows[0]!);
}

export async function findOperatorCredential(db: Queryable, prefix: string): Promise<OperatorCredential | undefined> {
  const { rows } = await db.query<OperatorRow>('SELECT * FROM partners.operators WHERE prefix = $1', [prefix]);
  const row = rows[0];
  return row ? { operatorId: row.id, email: row.email, role: row.role, secretHash: row.secret_hash, revoked: row.revoked_at !== null } : undefined;
}

/** `lastUsedAt` to the minute, at most one write per operator per minute. */
export async function touchOperator(db: Queryable, id: string): Promise<void> {
  await db.query(
    `UPDATE partners.operators SET last_used_at = date_trunc('minute', now())
     WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < date_trunc('minute', now()))`,
    [id],
  );
}
