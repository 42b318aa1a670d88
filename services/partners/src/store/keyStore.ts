import type { Queryable } from '@esim/postgres';
import type { PartnerStatus, Scope, Tier } from '@esim/vocabulary';
import type { ApiKey, KeyCredential } from '../domain/partner.js';
import { toApiKey, toKeyCredential, type ApiKeyRow } from './rows.js';

/** SQL for partners.api_keys (live and test keys; `livemode` tells them apart). */
export async function insertApiKey(
  db: Queryable,
  key: { id: string; partnerId: string; prefix: string; secretHash: string; scopes: Scope[]; livemode: boolean },
): Promise<ApiKey> {
  const { rows } = await db.query<ApiKeyRow>(
    `INSERT INTO partners.api_keys (id, partner_id, prefix, secret_hash, scopes, livemode) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
    [key.id, key.partnerId, key.prefix, key.secretHash, key.scopes, key.livemode],
  );
  return toApiKey(rows[0]!);
}

/** How many unrevoked test keys a partner holds (read under the partner's lock, for the limit of §14). */
export async function countActiveTestKeys(db: Queryable, partnerId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM partners.api_keys WHERE partner_id = $1 AND NOT livemode AND revoked_at IS NULL',
    [partnerId],
  );
  return rows[0]?.n ?? 0;
}

/** Every key of the partner, both modes, oldest first. */
export async function listApiKeys(db: Queryable, partnerId: string): Promise<ApiKey[]> {
  const { rows } = await db.query<ApiKeyRow>('SELECT * FROM partners.api_keys WHERE partner_id = $1 ORDER BY created_at, id', [partnerId]);
  return rows.map(toApiKey);
}

export async function findApiKey(db: Queryable, partnerId: string, keyId: string): Promise<ApiKey | undefined> {
  const { rows } = await db.query<ApiKeyRow>('SELECT * FROM partners.api_keys WHERE partner_id = $1 AND id = $2', [partnerId, keyId]);
  return rows[0] ? toApiKey(rows[0]) : undefined;
}

export async function revokeApiKey(db: Queryable, keyId: string): Promise<ApiKey> {
  const { rows } = await db.query<ApiKeyRow>(
    'UPDATE partners.api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1 RETURNING *',
    [keyId],
  );
  return toApiKey(rows[0]!);
}

export async function findCredentialByPrefix(db: Queryable, prefix: string): Promise<KeyCredential | undefined> {
  const { rows } = await db.query<ApiKeyRow & { status: PartnerStatus; tier: Tier }>(
    `SELECT k.*, p.status, p.tier FROM partners.api_keys k JOIN partners.partners p ON p.id = k.partner_id WHERE k.prefix = $1`,
    [prefix],
  );
  return rows[0] ? toKeyCredential(rows[0]) : undefined;
}

/** `lastUsedAt` to the minute: at most one write per key per minute, whatever the traffic. */
export async function touchApiKey(db: Queryable, keyId: string): Promise<void> {
  await db.query(
    `UPDATE partners.api_keys SET last_used_at = date_trunc('minute', now())
     WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < date_trunc('minute', now()))`,
    [keyId],
  );
}
