import { testAccountSqlPattern } from '@esim/ids';
import type { Queryable } from '@esim/postgres';
import { deliveriesDueChannels } from './eventStore.js';
import type { DeliveryStatus } from '@esim/vocabulary';
import type { Delivery } from '../domain/delivery.js';
import { deliveryColumns, deliveryOf, type DeliveryRow } from './rows.js';

export interface DeliveryFilter {
  /** One account (its mode is the id's). */
  partnerId?: string | undefined;
  /** Without an account: every account of this mode, picked out by the id (§14). */
  livemode?: boolean | undefined;
  endpointId?: string | undefined;
  status?: DeliveryStatus | undefined;
  limit: number;
  offset: number;
}

/** The delivery log, newest first (ties broken by id, so paging is stable). */
export async function listDeliveries(db: Queryable, filter: DeliveryFilter): Promise<{ deliveries: Delivery[]; total: number }> {
  const conditions: string[] = [];
  const params: unknown[] = [];
  if (filter.partnerId) conditions.push(`d.partner_id = $${params.push(filter.partnerId)}`);
  else if (filter.livemode !== undefined) conditions.push(`d.partner_id ${filter.livemode ? 'NOT LIKE' : 'LIKE'} $${params.push(testAccountSqlPattern)}`);
  if (filter.endpointId) conditions.push(`d.endpoint_id = $${params.push(filter.endpointId)}`);
  if (filter.status) conditions.push(`d.status = $${params.push(filter.status)}`);
  const where = conditions.length ? `WHERE ${conditions.join(' AND ')}` : '';
  const [page, count] = await Promise.all([
    db.query<DeliveryRow>(
      `SELECT ${deliveryColumns} FROM webhooks.deliveries d JOIN webhooks.events e ON e.id = d.event_id ${where}
       ORDER BY d.created_at DESC, d.id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, filter.limit, filter.offset],
    ),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhooks.deliveries d ${where}`, params),
  ]);
  return { deliveries: page.rows.map(deliveryOf), total: count.rows[0]?.n ?? 0 };
}

/**
 * Makes the delivery due now, whatever its state; attempts keep counting.
 * An attempt already in flight keeps its lease and records its own outcome,
 * which then stands for this request too.
 */
export async function makeDueNow(db: Queryable, id: string): Promise<Delivery | undefined> {
  const { rows } = await db.query<DeliveryRow>(
    `WITH updated AS (
       UPDATE webhooks.deliveries SET status = 'pending', next_attempt_at = now(), updated_at = now() WHERE id = $1 RETURNING *
     )
     SELECT ${deliveryColumns}, pg_notify(CASE WHEN d.partner_id LIKE $4 THEN $3 ELSE $2 END, '') FROM updated d JOIN webhooks.events e ON e.id = d.event_id`,
    // Each mode's workers listen on their own channel (eventStore.ts).
    [id, deliveriesDueChannels.live, deliveriesDueChannels.test, testAccountSqlPattern],
  );
  return rows[0] && deliveryOf(rows[0]);
}
