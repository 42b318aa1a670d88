import type { Queryable } from './pool.js';

/**
 * Wake-ups (LISTEN/NOTIFY) sent after the transaction that makes them true
 * has committed, rather than in it.
 *
 * Why: a transaction that NOTIFYs takes one lock for the whole database at
 * commit and holds it until its commit record is on disk, so every
 * notifying commit of every service, either mode, waits for the ones before
 * it to flush, one flush after another. The outbox's and the webhooks' wake-
 * ups made most commits of an order notifying, and a stalled flush (this
 * disk stalls some for 100–260 ms, idle) held up everyone's in turn
 * (docs/decisions.md, "Wake-ups after commit"). Sent after the commit, in a
 * transaction of its own that commits without waiting for the disk, the
 * lock is held for microseconds, and the data commits group-flush again.
 *
 * Nothing is lost by it: a wake-up only hastens a reader (the outbox relay,
 * the webhook worker) that also polls, and a transaction that rolls back
 * sends none, as before.
 */
const pending = new WeakMap<object, Set<string>>();

/** Wakes `channel`'s listeners once the transaction `db` runs in commits (`withTransaction`); otherwise at once, in the caller's own transaction if it is in one. */
export async function notifyAfterCommit(db: Queryable, channel: string): Promise<void> {
  const channels = pending.get(db);
  if (channels) channels.add(channel);
  // Not ours to change how the caller's transaction commits: a plain NOTIFY, transactional as it always was.
  else await db.query(`SELECT pg_notify($1, '')`, [channel]);
}

/** Called by `withTransaction` as its transaction begins. */
export function collectNotifications(db: object): void {
  pending.set(db, new Set());
}

/** Called by `withTransaction` once its transaction ended: sends what it collected if it committed, and forgets it either way. */
export async function flushNotifications(db: Queryable, committed: boolean): Promise<void> {
  const channels = pending.get(db);
  pending.delete(db);
  if (!committed || !channels || channels.size === 0) return;
  // One statement, so a transaction of its own; synchronous_commit off for it alone: it changes no data, so its
  // commit need not wait for the disk, and NOTIFY's lock is held for no flush.
  await db.query(`SELECT set_config('synchronous_commit', 'off', true), count(pg_notify(channel, '')) FROM unnest($1::text[]) AS channel`, [[...channels]]);
}
