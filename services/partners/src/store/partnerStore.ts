import type { Queryable } from '@esim/postgres';
import type { PartnerRow } from './rows.js';

export async function insertPartner(
  db: Queryable,
  partner: Pick<PartnerRow, 'id' | 'name' | 'email' | 'company' | 'password_hash' | 'webhook_url'>,
): Promise<PartnerRow> {
  const { rows } = await db.query<PartnerRow>(
    `INSERT INTO partners.partners (id, name, email, company, password_hash, webhook_url)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
    [partner.id, partner.name, partner.email, partner.company, partner.password_hash, partner.webhook_url],
  );
  return rows[0]!;
}

export async function findPartner(db: Queryable, id: string, options: { forUpdate?: boolean } = {}): Promise<PartnerRow | undefined> {
  const { rows } = await db.query<PartnerRow>(`SELECT * FROM partners.partners WHERE id = $1${options.forUpdate ? ' FOR UPDATE' : ''}`, [id]);
  return rows[0];
}

export async function findPartnerByEmail(db: Queryable, email: string): Promise<PartnerRow | undefined> {
  const { rows } = await db.query<PartnerRow>('SELECT * FROM partners.partners WHERE email = $1', [email]);
  return rows[0];
}

/** Sets the given columns (names are ours, never the caller's) and returns the new row. */
export async function updatePartner(
  db: Queryable,
  id: string,
  changes: Partial<Pick<PartnerRow, 'status' | 'tier' | 'webhook_url' | 'webhook_secret_sealed' | 'rejection_reason'>>,
): Promise<PartnerRow> {
  const columns = Object.keys(changes);
  const assignments = columns.map((column, i) => `${column} = $${i + 2}`);
  const { rows } = await db.query<PartnerRow>(
    `UPDATE partners.partners SET ${[...assignments, 'updated_at = now()'].join(', ')} WHERE id = $1 RETURNING *`,
    [id, ...Object.values(changes)],
  );
  return rows[0]!;
}

export async function listPartners(db: Queryable, filter: { status: string; limit: number; offset: number }): Promise<{ rows: PartnerRow[]; total: number }> {
  const where = filter.status ? 'WHERE status = $1' : 'WHERE $1 = $1';
  const [page, count] = await Promise.all([
    db.query<PartnerRow>(`SELECT * FROM partners.partners ${where} ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`, [
      filter.status,
      filter.limit,
      filter.offset,
    ]),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM partners.partners ${where}`, [filter.status]),
  ]);
  return { rows: page.rows, total: count.rows[0]?.n ?? 0 };
}
