import type { RetentionRule } from '@esim/service';

/** A verification or reset token is kept this long after it expired (used or not): a late click still reads "expired", not "unknown". */
export const expiredTokenRetentionDays = 7;

/**
 * The partners schema's retention (contract §11, docs/retention.md). The
 * audit log is kept whole: it is the record of who did what (§10), written
 * only by people's actions, so it grows with operators, not with traffic.
 */
export const partnersRetention: readonly RetentionRule[] = [
  {
    table: 'partners.account_tokens',
    async prune(db, batch) {
      const { rowCount } = await db.query(
        `DELETE FROM partners.account_tokens WHERE token_hash IN (
           SELECT token_hash FROM partners.account_tokens WHERE expires_at < now() - $1 * interval '1 day' ORDER BY expires_at LIMIT $2)`,
        [expiredTokenRetentionDays, batch],
      );
      return rowCount ?? 0;
    },
  },
];
