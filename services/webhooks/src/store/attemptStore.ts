import { randomUUID } from 'node:crypto';
import { lanes as allLanes, servedLanes, type Lane } from '@esim/events';
import { testAccountSqlPattern } from '@esim/ids';
import { withTransaction, type Pool, type Queryable } from '@esim/postgres';
import type { AttemptResult, ClaimedAttempt } from '../domain/delivery.js';
import { eventOf, type EventRow } from './rows.js';

/**
 * Due deliveries a worker may start now. A delivery is skipped while an
 * earlier event of the same order is still pending to the same endpoint
 * (payment.paid goes out before provision.*), and each partner gets at most
 * its free slots: the per-partner limit minus its deliveries leased by any
 * replica. Rows are locked with SKIP LOCKED, so a row an operator is
 * retrying at that moment is passed over rather than waited for.
 *
 * "Earlier" is the sequence this database assigned when it recorded the
 * event (events.seq, in stream order, copied onto each delivery as
 * event_seq), never a producer's clock: two replicas' clocks may disagree
 * (#23).
 *
 * Cost (#28, docs/benchmarks.md): every read goes through a partial index
 * of pending deliveries, never through finished ones. The partners with
 * anything pending are found by a skip scan (one probe each), each
 * partner's due rows in claim order from deliveries_claimable, and the
 * ordering check in deliveries_pending_order_seq (the delivery carries its
 * event's order and sequence), so a claim's reads do not grow with history.
 */
export const dueSql = (served: readonly Lane[] = allLanes) => `
WITH RECURSIVE pending_partners AS (
  (SELECT partner_id FROM webhooks.deliveries WHERE status = 'pending' AND next_attempt_at IS NOT NULL ORDER BY partner_id LIMIT 1)
  UNION ALL
  SELECT (
    SELECT d.partner_id FROM webhooks.deliveries d
    WHERE d.status = 'pending' AND d.next_attempt_at IS NOT NULL AND d.partner_id > p.partner_id ORDER BY d.partner_id LIMIT 1
  )
  FROM pending_partners p WHERE p.partner_id IS NOT NULL
),
quota AS (
  SELECT p.partner_id, $1::int - (
    SELECT count(*)::int FROM webhooks.deliveries l
    WHERE l.partner_id = p.partner_id AND l.status = 'pending' AND l.locked_until IS NOT NULL AND l.locked_until > now()
  ) AS free
  FROM pending_partners p WHERE p.partner_id IS NOT NULL${laneFilter(served, 'p.partner_id')}
)
SELECT c.id FROM quota q
CROSS JOIN LATERAL (
  SELECT d.id, d.next_attempt_at FROM webhooks.deliveries d
  WHERE d.partner_id = q.partner_id AND d.status = 'pending' AND d.next_attempt_at <= now()
    AND (d.locked_until IS NULL OR d.locked_until <= now())
    -- OFFSET 0 keeps this a per-row probe (Postgres does not turn it into an anti-join): with the
    -- statistics a burst leaves (pending_order looked empty), the anti-join scanned the whole index per row.
    AND (d.order_id IS NULL OR NOT EXISTS (
      SELECT 1 FROM webhooks.deliveries d2
      WHERE d2.status = 'pending' AND d2.order_id IS NOT NULL
        AND d2.endpoint_id = d.endpoint_id AND d2.order_id = d.order_id
        AND d2.event_seq < d.event_seq
      OFFSET 0
    ))
  ORDER BY d.next_attempt_at, d.id
  LIMIT greatest(q.free, 0)
  FOR UPDATE OF d SKIP LOCKED
) c
ORDER BY c.next_attempt_at, c.id
LIMIT $2`;

/**
 * Test mode's own lane (#26, @esim/events lanes.ts): a worker of a process
 * serving one lane claims that mode's partners only (a test account's id
 * ends in `_test`). The partners skip scan still probes every partner with
 * anything pending, one probe each; only the claim is filtered.
 */
function laneFilter(served: readonly Lane[], column: string): string {
  if (served.length === allLanes.length) return '';
  return served[0] === 'test' ? ` AND ${column} LIKE '${testAccountSqlPattern}'` : ` AND ${column} NOT LIKE '${testAccountSqlPattern}'`;
}

/**
 * Claims of one lane are serialized over every replica serving it; a lane's
 * partners are its own, so lanes need not wait for each other, and a test
 * replica at a lower priority never holds the live claim. The live lane's
 * key is the one every worker took before lanes.
 */
const claimLocks = (served: readonly Lane[]) =>
  served.map((lane) => `SELECT pg_advisory_xact_lock(hashtext('${lane === 'live' ? 'webhooks.claim' : `webhooks.claim.${lane}`}'))`);

/**
 * Leases up to `limit` due deliveries for `leaseMs` and numbers their
 * attempts. The attempt number is taken here, before anything is sent, so
 * an attempt cut short by a crash is never numbered again.
 */
export function claimDueAttempts(pool: Pool, options: { limit: number; perPartner: number; leaseMs: number; lanes?: readonly Lane[] }): Promise<ClaimedAttempt[]> {
  if (options.limit <= 0) return Promise.resolve([]);
  const served = servedLanes(options.lanes);
  return withTransaction(pool, async (db) => {
    // Claims are serialized over every replica (they take milliseconds), so two
    // replicas never both see a partner's free slots and exceed its limit.
    for (const lock of claimLocks(served)) await db.query(lock);
    const due = await db.query<{ id: string }>(dueSql(served), [options.perPartner, options.limit]);
    if (due.rows.length === 0) return [];
    const leaseId = randomUUID();
    const { rows } = await db.query<EventRow & { delivery_id: string; endpoint_id: string; attempts: number; delivered_at: Date | null }>(
      `UPDATE webhooks.deliveries d
       SET locked_until = now() + $3 * interval '1 millisecond', lease_id = $2, attempts = d.attempts + 1
       FROM webhooks.events e
       WHERE d.id = ANY($1) AND e.id = d.event_id
       RETURNING d.id AS delivery_id, d.endpoint_id, d.attempts, d.delivered_at,
         e.id, e.partner_id, e.type, e.order_id, e.payload, e.trace_context, e.created_at`,
      [due.rows.map((row) => row.id), leaseId, options.leaseMs],
    );
    return rows.map((row) => ({
      deliveryId: row.delivery_id,
      endpointId: row.endpoint_id,
      leaseId,
      attempt: row.attempts,
      deliveredBefore: row.delivered_at !== null,
      event: eventOf(row),
    }));
  });
}

/** Writes an attempt's outcome and drops the lease; false when the lease was lost (expired and taken by another worker). */
export async function recordAttemptResult(db: Queryable, claimed: Pick<ClaimedAttempt, 'deliveryId' | 'leaseId'>, result: AttemptResult): Promise<boolean> {
  const statusCode = 'statusCode' in result ? result.statusCode : null;
  const error = 'error' in result ? result.error : null;
  const delayMs = result.status === 'pending' ? result.nextAttemptInMs : null;
  const { rowCount } = await db.query(
    `UPDATE webhooks.deliveries SET
       status = $3, attempts = $4, last_status_code = $5, last_error = $6,
       next_attempt_at = CASE WHEN $3 = 'pending' THEN now() + $7 * interval '1 millisecond' END,
       delivered_at = CASE WHEN $3 = 'succeeded' THEN now() ELSE delivered_at END,
       locked_until = NULL, lease_id = NULL, updated_at = now()
     WHERE id = $1 AND lease_id = $2`,
    [claimed.deliveryId, claimed.leaseId, result.status, result.attempts, statusCode, error, delayMs],
  );
  return rowCount === 1;
}

/**
 * Milliseconds until the soonest pending delivery may be claimed (its next
 * attempt, or its lease running out): 0 when one is claimable now, undefined
 * when none is pending. The partial index deliveries_claimable serves it.
 */
export async function msUntilNextDue(db: Queryable, lanes?: readonly Lane[]): Promise<number | undefined> {
  const served = servedLanes(lanes);
  // NULL when nothing is pending (GREATEST would turn that NULL into 0: clamped here instead).
  const { rows } = await db.query<{ ms: number | null }>(
    `SELECT (EXTRACT(EPOCH FROM min(GREATEST(next_attempt_at, COALESCE(locked_until, next_attempt_at))) - now()) * 1000)::float8 AS ms
     FROM webhooks.deliveries WHERE status = 'pending' AND next_attempt_at IS NOT NULL${laneFilter(served, 'partner_id')}`,
  );
  const ms = rows[0]?.ms;
  return ms === null || ms === undefined ? undefined : Math.max(0, ms);
}
