import { open, seal, sealedWithoutRecord, webhookSecretRecord } from '@esim/crypto';
import type { Pool } from '@esim/postgres';

/** Every column of an endpoint holding a sealed signing secret: the current one and the previous one of a rotation's overlap. */
const sealedColumns = ['secret_sealed', 'previous_secret_sealed'] as const;

/**
 * A data migration run at every start (#24): endpoint secrets sealed before
 * they were bound to their account (v1, no associated data; endpoints made
 * between #28 and AES-GCM v2) are re-sealed for it (v2), as the partners
 * service does for the primary secret. Idempotent and safe with replicas:
 * a value is rewritten only while it still holds what was read; one that
 * does not open under this key is left alone. An UPDATE as the service's
 * own role: no migration Job needed.
 */
export async function resealEndpointSecrets(deps: { pool: Pool; dataKey: Buffer }): Promise<number> {
  let resealed = 0;
  for (const column of sealedColumns) {
    const { rows } = await deps.pool.query<{ id: string; partner_id: string; sealed: string }>(
      `SELECT id, partner_id, ${column} AS sealed FROM webhooks.endpoints WHERE ${column} LIKE 'v1.%'`,
    );
    for (const row of rows) {
      if (!sealedWithoutRecord(row.sealed)) continue;
      let secret: string;
      try {
        secret = open(deps.dataKey, row.sealed);
      } catch {
        continue;
      }
      const updated = await deps.pool.query(`UPDATE webhooks.endpoints SET ${column} = $3 WHERE id = $1 AND ${column} = $2`, [
        row.id,
        row.sealed,
        seal(deps.dataKey, secret, webhookSecretRecord(row.partner_id)),
      ]);
      resealed += updated.rowCount ?? 0;
    }
  }
  return resealed;
}
