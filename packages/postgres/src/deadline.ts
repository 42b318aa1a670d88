import type { Queryable } from './pool.js';

/** Thrown when a transaction reaches its deadline before it could commit: nothing of it is kept. */
export class DeadlinePassed extends Error {
  override name = 'DeadlinePassed';
}

/**
 * Bounds the caller's open transaction by `notAfter`, measured by the
 * database's own clock (never this process's: a paused process cannot stretch
 * it). Throws DeadlinePassed when it has already passed; otherwise sets, for
 * the rest of the transaction, `statement_timeout` and
 * `idle_in_transaction_session_timeout` to what is left, computed by the
 * database when it runs this statement. Called as the last statement before
 * COMMIT, it makes the commit land before `notAfter` or never: a process
 * paused after it (SIGSTOP, a GC pause, a frozen VM) finds its session ended
 * and the transaction rolled back by the database when it resumes.
 */
export async function boundTransaction(db: Queryable, notAfter: Date): Promise<void> {
  const { rows } = await db.query<{ left_ms: string }>(
    `WITH left_ms AS (SELECT floor(extract(epoch FROM ($1::timestamptz - clock_timestamp())) * 1000)::bigint AS ms)
     SELECT ms AS left_ms,
            set_config('statement_timeout', GREATEST(ms, 1)::text, true),
            set_config('idle_in_transaction_session_timeout', GREATEST(ms, 1)::text, true)
     FROM left_ms`,
    [notAfter.toISOString()],
  );
  if (Number(rows[0]!.left_ms) <= 0) throw new DeadlinePassed(`the transaction's deadline ${notAfter.toISOString()} has passed`);
}
