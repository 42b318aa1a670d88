import type { Queryable } from '@esim/postgres';

export type TokenPurpose = 'verify_email' | 'reset_password';

/** SQL for partners.account_tokens: single-use tokens known only by their hash. */
export async function insertAccountToken(
  db: Queryable,
  token: { tokenHash: string; partnerId: string; purpose: TokenPurpose; validForMs: number },
): Promise<void> {
  await db.query(
    `INSERT INTO partners.account_tokens (token_hash, partner_id, purpose, expires_at)
     VALUES ($1, $2, $3, now() + make_interval(secs => $4::double precision / 1000))`,
    [token.tokenHash, token.partnerId, token.purpose, token.validForMs],
  );
}

/**
 * Uses a token: answers its partner when it was unused and unexpired, and
 * marks it used in the same statement, so two concurrent uses cannot both win.
 */
export async function useAccountToken(db: Queryable, tokenHash: string, purpose: TokenPurpose): Promise<string | undefined> {
  const { rows } = await db.query<{ partner_id: string }>(
    `UPDATE partners.account_tokens SET used_at = now()
     WHERE token_hash = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > now()
     RETURNING partner_id`,
    [tokenHash, purpose],
  );
  return rows[0]?.partner_id;
}

/** Every other outstanding token of this purpose stops working (a reset used, a password changed). */
export async function retireAccountTokens(db: Queryable, partnerId: string, purpose: TokenPurpose): Promise<void> {
  await db.query(`UPDATE partners.account_tokens SET used_at = now() WHERE partner_id = $1 AND purpose = $2 AND used_at IS NULL`, [partnerId, purpose]);
}
