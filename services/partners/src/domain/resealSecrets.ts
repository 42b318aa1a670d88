import { open, sealedWithoutRecord } from '@esim/crypto';
import type { PartnersDeps } from './deps.js';
import { sealWebhookSecret } from './webhookSecrets.js';

/**
 * A data migration run at every start (#24): webhook secrets sealed before
 * they were bound to their partner (v1, no associated data) are re-sealed
 * for it (v2). Idempotent and safe with replicas: each row is rewritten only
 * while it still holds the value read, and a secret that does not open under
 * this key is left alone (it never signed anything this deployment can open).
 */
export async function resealWebhookSecrets(deps: PartnersDeps): Promise<number> {
  const { rows } = await deps.pool.query<{ id: string; webhook_secret_sealed: string }>(
    `SELECT id, webhook_secret_sealed FROM partners.partners WHERE webhook_secret_sealed LIKE 'v1.%'`,
  );
  let resealed = 0;
  for (const row of rows) {
    if (!sealedWithoutRecord(row.webhook_secret_sealed)) continue;
    let secret: string;
    try {
      secret = open(deps.dataKey, row.webhook_secret_sealed);
    } catch {
      continue;
    }
    const updated = await deps.pool.query(
      'UPDATE partners.partners SET webhook_secret_sealed = $3 WHERE id = $1 AND webhook_secret_sealed = $2',
      [row.id, row.webhook_secret_sealed, sealWebhookSecret(deps.dataKey, row.id, secret)],
    );
    resealed += updated.rowCount ?? 0;
  }
  return resealed;
}
