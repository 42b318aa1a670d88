import { open, sealedWithoutRecord } from '@esim/crypto';
import type { PartnersDeps } from './deps.js';
import { sealWebhookSecret } from './webhookSecrets.js';

/** Every column holding a partner's sealed webhook secret: the current one and the one still signing during a rotation's overlap. */
const sealedColumns = ['webhook_secret_sealed', 'webhook_secret_previous_sealed'] as const;

/**
 * A data migration run at every start (#24): webhook secrets sealed before
 * they were bound to their partner (v1, no associated data) are re-sealed
 * for it (v2), the overlap's previous secret as well as the current one.
 * Idempotent and safe with replicas: each value is rewritten only while it
 * still holds the value read, and a secret that does not open under this
 * key is left alone (it never signed anything this deployment can open).
 * It runs as the service's own database role (an UPDATE, no DDL), so it
 * needs no migration Job.
 */
export async function resealWebhookSecrets(deps: PartnersDeps): Promise<number> {
  let resealed = 0;
  for (const column of sealedColumns) {
    const { rows } = await deps.pool.query<{ id: string; sealed: string }>(`SELECT id, ${column} AS sealed FROM partners.partners WHERE ${column} LIKE 'v1.%'`);
    for (const row of rows) {
      if (!sealedWithoutRecord(row.sealed)) continue;
      let secret: string;
      try {
        secret = open(deps.dataKey, row.sealed);
      } catch {
        continue;
      }
      const updated = await deps.pool.query(`UPDATE partners.partners SET ${column} = $3 WHERE id = $1 AND ${column} = $2`, [
        row.id,
        row.sealed,
        sealWebhookSecret(deps.dataKey, row.id, secret),
      ]);
      resealed += updated.rowCount ?? 0;
    }
  }
  return resealed;
}
