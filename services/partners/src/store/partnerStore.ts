import type { Queryable } from '@esim/postgres';
import type { PartnerStatus } from '@esim/vocabulary';
import type { Partner, PartnerChanges } from '../domain/partner.js';
import { toPartner, type PartnerRow } from './rows.js';

/** SQL for partners.partners; nothing outside src/store writes SQL against it. */
export async function insertPartner(
  db: Queryable,
  partner: Pick<Partner, 'id' | 'name' | 'email' | 'company' | 'webhookUrl'> & { passwordHash: string },
): Promise<Partner> {
  const { rows } = await db.query<PartnerRow>(
    `INSERT INTO partners.partners (id, name, email, company, password_hash, webhook_url)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
    [partner.id, partner.name, partner.email, partner.company, partner.passwordHash, partner.webhookUrl],
  );
  return toPartner(rows[0]!);
}

export async function findPartner(db: Queryable, id: string, options: { forUpdate?: boolean } = {}): Promise<Partner | undefined> {
  const { rows } = await db.query<PartnerRow>(`SELECT * FROM partners.partners WHERE id = $1${options.forUpdate ? ' FOR UPDATE' : ''}`, [id]);
  return rows[0] ? toPartner(rows[0]) : undefined;
}

/** The only read that returns the password hash: login needs it, nothing else does. */
export async function findLoginByEmail(db: Queryable, email: string): Promise<{ partner: Partner; passwordHash: string } | undefined> {
  const { rows } = await db.query<PartnerRow>('SELECT * FROM partners.partners WHERE email = $1', [email]);
  return rows[0] ? { partner: toPartner(rows[0]), passwordHash: rows[0].password_hash } : undefined;
}

const columnOf: Record<keyof PartnerChanges, string> = {
  status: 'status',
  tier: 'tier',
  webhookUrl: 'webhook_url',
  webhookSecretSealed: 'webhook_secret_sealed',
  testWebhookUrl: 'test_webhook_url',
  testWebhookSecretSealed: 'test_webhook_secret_sealed',
  rejectionReason: 'rejection_reason',
};

/** Sets the given fields (column names are ours, never the caller's) and returns the new partner. */
export async function updatePartner(db: Queryable, id: string, changes: PartnerChanges): Promise<Partner> {
  const fields = (Object.keys(changes) as (keyof PartnerChanges)[]).filter((field) => changes[field] !== undefined);
  const assignments = fields.map((field, i) => `${columnOf[field]} = $${i + 2}`);
  const { rows } = await db.query<PartnerRow>(
    `UPDATE partners.partners SET ${[...assignments, 'updated_at = now()'].join(', ')} WHERE id = $1 RETURNING *`,
    [id, ...fields.map((field) => changes[field])],
  );
  return toPartner(rows[0]!);
}

/** Newest first; `status` undefined lists every status. */
export async function listPartners(
  db: Queryable,
  filter: { status: PartnerStatus | undefined; limit: number; offset: number },
): Promise<{ partners: Partner[]; total: number }> {
  const where = 'WHERE ($1::text IS NULL OR status = $1)';
  const status = filter.status ?? null;
  const [page, count] = await Promise.all([
    db.query<PartnerRow>(`SELECT * FROM partners.partners ${where} ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`, [
      status,
      filter.limit,
      filter.offset,
    ]),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM partners.partners ${where}`, [status]),
  ]);
  return { partners: page.rows.map(toPartner), total: count.rows[0]?.n ?? 0 };
}

/** The partner holding this e-mail with its password hash, for the account use cases that need both. */
export async function findPartnerByEmail(db: Queryable, email: string, options: { forUpdate?: boolean } = {}): Promise<Partner | undefined> {
  const { rows } = await db.query<PartnerRow>(`SELECT * FROM partners.partners WHERE email = $1${options.forUpdate ? ' FOR UPDATE' : ''}`, [email]);
  return rows[0] ? toPartner(rows[0]) : undefined;
}

/** The password hash of one partner (a password change checks the current one). */
export async function findPasswordHash(db: Queryable, id: string): Promise<string | undefined> {
  const { rows } = await db.query<{ password_hash: string }>('SELECT password_hash FROM partners.partners WHERE id = $1', [id]);
  return rows[0]?.password_hash;
}

/** A new password ends every portal session: the session version rises with it. */
export async function setPassword(db: Queryable, id: string, passwordHash: string, options: { endSessions: boolean }): Promise<Partner> {
  const { rows } = await db.query<PartnerRow>(
    `UPDATE partners.partners SET password_hash = $2, session_version = session_version + $3, updated_at = now() WHERE id = $1 RETURNING *`,
    [id, passwordHash, options.endSessions ? 1 : 0],
  );
  return toPartner(rows[0]!);
}

export async function markEmailVerified(db: Queryable, id: string): Promise<Partner> {
  const { rows } = await db.query<PartnerRow>(
    `UPDATE partners.partners SET email_verified_at = coalesce(email_verified_at, now()), updated_at = now() WHERE id = $1 RETURNING *`,
    [id],
  );
  return toPartner(rows[0]!);
}

/** Removes an application that never proved its address (its tokens go with it). */
export async function deletePartner(db: Queryable, id: string): Promise<void> {
  await db.query('DELETE FROM partners.partners WHERE id = $1', [id]);
}
