import type { RetentionRule } from '@esim/service';

/**
 * What was sent is kept this long: operators answer "did the partner get the
 * mail?" over a quarter, and a row is also the mail's de-duplication, needed
 * while its event can come back (the MAIL stream keeps 7 days, dead letters 30).
 */
export const sentMessageRetentionDays = 90;

/** The mailer schema's retention (contract §11, docs/retention.md). */
export const mailerRetention: readonly RetentionRule[] = [
  {
    table: 'mailer.sent_messages',
    async prune(db, batch) {
      const { rowCount } = await db.query(
        `DELETE FROM mailer.sent_messages WHERE event_id IN (
           SELECT event_id FROM mailer.sent_messages WHERE sent_at < now() - $1 * interval '1 day' ORDER BY sent_at LIMIT $2)`,
        [sentMessageRetentionDays, batch],
      );
      return rowCount ?? 0;
    },
  },
];
