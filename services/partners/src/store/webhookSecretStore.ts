import type { Queryable } from '@esim/postgres';

/**
 * One statement: the new sealed secret replaces the old one, which keeps
 * signing until `overlapMs` from now (not at all when 0). A crash leaves the
 * old state or the new one, never a partner without a usable secret.
 */
export async function replaceWebhookSecret(db: Queryable, partnerId: string, sealedSecret: string, overlapMs: number): Promise<void> {
  await db.query(
    `UPDATE partners.partners SET
       webhook_secret_previous_sealed = CASE WHEN $3 > 0 AND webhook_secret_sealed IS NOT NULL THEN webhook_secret_sealed END,
       webhook_secret_previous_until = CASE WHEN $3 > 0 AND webhook_secret_sealed IS NOT NULL THEN now() + $3 * interval '1 millisecond' END,
       webhook_secret_sealed = $2, updated_at = now()
     WHERE id = $1`,
    [partnerId, sealedSecret, overlapMs],
  );
}

/** The old secret still signing after a rotation, if its overlap has not ended. */
export async function findPreviousWebhookSecret(db: Queryable, partnerId: string): Promise<{ sealed: string; until: Date } | undefined> {
  const { rows } = await db.query<{ sealed: string; until: Date }>(
    `SELECT webhook_secret_previous_sealed AS sealed, webhook_secret_previous_until AS until FROM partners.partners
     WHERE id = $1 AND webhook_secret_previous_until > now()`,
    [partnerId],
  );
  return rows[0];
}
