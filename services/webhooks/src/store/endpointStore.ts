import { livemodeOf, newId } from '@esim/ids';
import type { Queryable } from '@esim/postgres';
import type { PartnerEventType } from '@esim/vocabulary';
import type { Endpoint } from '../domain/endpoint.js';

interface EndpointRow {
  id: string;
  partner_id: string;
  livemode: boolean;
  is_primary: boolean;
  url: string | null;
  description: string;
  event_types: PartnerEventType[] | null;
  enabled: boolean;
  disabled_reason: 'failing' | null;
  secret_sealed: string | null;
  previous_secret_sealed: string | null;
  previous_secret_until: Date | null;
  created_at: Date;
}

const columns = `id, partner_id, livemode, is_primary, url, description, event_types, enabled, disabled_reason,
  secret_sealed, previous_secret_sealed, previous_secret_until, created_at`;

function endpointOf(row: EndpointRow): Endpoint {
  return {
    id: row.id,
    partnerId: row.partner_id,
    livemode: row.livemode,
    primary: row.is_primary,
    url: row.url,
    description: row.description,
    eventTypes: row.event_types,
    enabled: row.enabled,
    disabledReason: row.disabled_reason,
    secretSealed: row.secret_sealed,
    previousSecretSealed: row.previous_secret_sealed,
    previousSecretUntil: row.previous_secret_until,
    createdAt: row.created_at,
  };
}

/** Serializes endpoint writes of one partner (the per-mode limit, the primary row's creation). */
export async function lockPartnerEndpoints(db: Queryable, partnerId: string): Promise<void> {
  await db.query(`SELECT pg_advisory_xact_lock(hashtext('webhooks.endpoints'), hashtext($1))`, [partnerId]);
}

/**
 * An account's endpoints (`partnerId` is the account id: `ptn_X` live,
 * `ptn_X_test` test; its mode is its livemode, a CHECK holds the two
 * together): the primary one (whatever its URL) first, then oldest first.
 */
export async function listEndpoints(db: Queryable, partnerId: string): Promise<Endpoint[]> {
  const { rows } = await db.query<EndpointRow>(
    `SELECT ${columns} FROM webhooks.endpoints WHERE partner_id = $1 AND livemode = $2 ORDER BY is_primary DESC, created_at, id`,
    [partnerId, livemodeOf(partnerId)],
  );
  return rows.map(endpointOf);
}

export async function findEndpoint(db: Queryable, id: string, options: { forUpdate?: boolean } = {}): Promise<Endpoint | undefined> {
  const { rows } = await db.query<EndpointRow>(`SELECT ${columns} FROM webhooks.endpoints WHERE id = $1${options.forUpdate ? ' FOR UPDATE' : ''}`, [id]);
  return rows[0] && endpointOf(rows[0]);
}

/** The account's primary endpoint row, made on first need so that it has an id. */
export async function ensurePrimaryEndpoint(db: Queryable, partnerId: string): Promise<Endpoint> {
  const livemode = livemodeOf(partnerId);
  await db.query(
    `INSERT INTO webhooks.endpoints (id, partner_id, livemode, is_primary) VALUES ($1, $2, $3, true)
     ON CONFLICT (partner_id, livemode) WHERE is_primary DO NOTHING`,
    [newId('whe'), partnerId, livemode],
  );
  const { rows } = await db.query<EndpointRow>(`SELECT ${columns} FROM webhooks.endpoints WHERE partner_id = $1 AND livemode = $2 AND is_primary`, [
    partnerId,
    livemode,
  ]);
  return endpointOf(rows[0]!);
}

export async function insertEndpoint(
  db: Queryable,
  endpoint: { partnerId: string; url: string; description: string; eventTypes: PartnerEventType[] | null; enabled: boolean; secretSealed: string },
): Promise<Endpoint> {
  const { rows } = await db.query<EndpointRow>(
    `INSERT INTO webhooks.endpoints (id, partner_id, livemode, url, description, event_types, enabled, secret_sealed)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${columns}`,
    [newId('whe'), endpoint.partnerId, livemodeOf(endpoint.partnerId), endpoint.url, endpoint.description, endpoint.eventTypes, endpoint.enabled, endpoint.secretSealed],
  );
  return endpointOf(rows[0]!);
}

export interface EndpointChanges {
  url?: string | undefined;
  description?: string | undefined;
  eventTypes?: PartnerEventType[] | null | undefined;
  enabled?: boolean | undefined;
}

/** Applies the changes; enabling clears the disabled reason and the failure count, disabling by hand leaves no reason. */
export async function updateEndpoint(db: Queryable, id: string, changes: EndpointChanges): Promise<Endpoint> {
  const { rows } = await db.query<EndpointRow>(
    `UPDATE webhooks.endpoints SET
       url = CASE WHEN $2 THEN $3 ELSE url END,
       description = COALESCE($4, description),
       event_types = CASE WHEN $5 THEN $6::text[] ELSE event_types END,
       enabled = COALESCE($7, enabled),
       disabled_reason = CASE WHEN $7 IS NULL THEN disabled_reason ELSE NULL END,
       failing_since = CASE WHEN $7 THEN NULL ELSE failing_since END,
       failed_attempts = CASE WHEN $7 THEN 0 ELSE failed_attempts END,
       updated_at = now()
     WHERE id = $1 RETURNING ${columns}`,
    [id, changes.url !== undefined, changes.url ?? null, changes.description ?? null, changes.eventTypes !== undefined, changes.eventTypes ?? null, changes.enabled ?? null],
  );
  return endpointOf(rows[0]!);
}

export async function deleteEndpoint(db: Queryable, id: string): Promise<void> {
  await db.query(`DELETE FROM webhooks.endpoints WHERE id = $1`, [id]);
}

/** Every endpoint of one account (the test-data wipe); answers how many went. */
export async function deleteAccountEndpoints(db: Queryable, partnerId: string): Promise<number> {
  const { rowCount } = await db.query(`DELETE FROM webhooks.endpoints WHERE partner_id = $1`, [partnerId]);
  return rowCount ?? 0;
}

/**
 * One statement: the new secret replaces the old, which keeps signing until
 * `overlapMs` from now (none when 0). A crash leaves the old state or the
 * new one, never an endpoint without a secret.
 */
export async function rotateEndpointSecret(db: Queryable, id: string, secretSealed: string, overlapMs: number): Promise<Endpoint> {
  const { rows } = await db.query<EndpointRow>(
    `UPDATE webhooks.endpoints SET
       previous_secret_sealed = CASE WHEN $3 > 0 THEN secret_sealed END,
       previous_secret_until = CASE WHEN $3 > 0 THEN now() + $3 * interval '1 millisecond' END,
       secret_sealed = $2, updated_at = now()
     WHERE id = $1 RETURNING ${columns}`,
    [id, secretSealed, overlapMs],
  );
  return endpointOf(rows[0]!);
}

/** A success ends a failing streak. */
export async function recordEndpointSuccess(db: Queryable, id: string): Promise<void> {
  await db.query(`UPDATE webhooks.endpoints SET failing_since = NULL, failed_attempts = 0 WHERE id = $1 AND (failing_since IS NOT NULL OR failed_attempts > 0)`, [id]);
}

/**
 * Counts a failed attempt. When every attempt has failed for `disableAfterMs`
 * and at least `minAttempts` times, the endpoint is disabled in the same
 * statement; the disabled endpoint is returned only by the attempt that
 * disabled it, so the notice goes out once.
 */
export async function recordEndpointFailure(db: Queryable, id: string, disableAfterMs: number, minAttempts: number): Promise<Endpoint | undefined> {
  const due = `e.enabled AND e.failed_attempts + 1 >= $3 AND COALESCE(e.failing_since, now()) <= now() - $2 * interval '1 millisecond'`;
  const { rows } = await db.query<EndpointRow & { disabled_now: boolean }>(
    `WITH old AS (SELECT id, enabled FROM webhooks.endpoints WHERE id = $1 FOR UPDATE)
     UPDATE webhooks.endpoints e SET
       enabled = CASE WHEN ${due} THEN false ELSE e.enabled END,
       disabled_reason = CASE WHEN ${due} THEN 'failing' ELSE e.disabled_reason END,
       failing_since = COALESCE(e.failing_since, now()),
       failed_attempts = e.failed_attempts + 1
     FROM old WHERE e.id = old.id
     RETURNING ${columns.split(',').map((c) => `e.${c.trim()}`).join(', ')}, (old.enabled AND NOT e.enabled) AS disabled_now`,
    [id, disableAfterMs, minAttempts],
  );
  const row = rows[0];
  return row?.disabled_now ? endpointOf(row) : undefined;
}
