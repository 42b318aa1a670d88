import type { Queryable } from '@esim/postgres';
import type { ApiKeyRow, PartnerRow } from './rows.js';

export async function insertApiKey(db: Queryable, key: Pick<ApiKeyRow, 'id' | 'partner_id' | 'prefix' | 'secret_hash' | 'scopes'>): Promise<ApiKeyRow> {
  const { rows } = await db.query<ApiKeyRow>(
    `INSERT INTO partners.api_keys (id, partner_id, prefix, secret_hash, scopes) VALUES ($1, $2, $3, $4, $5) RETURNING *`,
    [key.id, key.partner_id, key.prefix, key.secret_hash, key.scopes],
  );
  return rows[0]!;
}

export async function listApiKeys(db: Queryable, partnerId: string): Promise<ApiKeyRow[]> {
  const { rows } = await db.query<ApiKeyRow>('SELECT * FROM partners.api_keys WHERE partner_id = $1 ORDER BY created_at, id', [partnerId]);
  return rows;
}

export async function findApiKey(db: Queryable, partnerId: string, keyId: string): Promise<ApiKeyRow | undefined> {
  const { rows } = await db.query<ApiKeyRow>('SELECT * FROM partners.api_keys WHERE partner_id = $1 AND id = $2', [partnerId, keyId]);
  return rows[0];
}

export async function revokeApiKey(db: Queryable, keyId: string): Promise<ApiKeyRow> {
  const { rows } = await db.query<ApiKeyRow>(
    'UPDATE partners.api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1 RETURNING *',
    [keyId],
  );
  return rows[0]!;
}

export async function findCredentialByPrefix(
  db: Queryable,
  prefix: string,
): Promise<(ApiKeyRow & Pick<PartnerRow, 'status' | 'tier'>) | undefined> {
  const { rows } = await db.query<ApiKeyRow & Pick<PartnerRow, 'status' | 'tier'>>(
    `SELECT k.*, p.status, p.tier FROM partners.api_keys k JOIN partners.partners p ON p.id = k.partner_id WHERE k.prefix = $1`,
    [prefix],
  );
  return rows[0];
}

/** `lastUsedAt` to the minute: at most one write per key per minute, whatever the traffic. */
export async function touchApiKey(db: Queryable, keyId: string): Promise<void> {
  await db.query(
    `UPDATE partners.api_keys SET last_used_at = date_trunc('minute', now())
     WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < date_trunc('minute', now()))`,
    [keyId],
  );
}
