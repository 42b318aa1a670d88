import { testAccountSqlPattern } from '@esim/ids';
import type { Queryable } from '@esim/postgres';
import type { Esim, Order, StoredStatus } from '../domain/order.js';
import { columns, one, toOrder, type OrderRow } from './orderRow.js';

/** SQL for orders.orders; nothing outside src/store writes SQL against it. */
export const schema = 'orders';

export async function findOrderByRequest(db: Queryable, partnerId: string, clientRequestId: string): Promise<Order | undefined> {
  const { rows } = await db.query<OrderRow>(`SELECT ${columns} FROM orders.orders WHERE partner_id = $1 AND client_request_id = $2 AND group_order_id IS NULL`, [
    partnerId,
    clientRequestId,
  ]);
  return one(rows);
}

export async function findOrder(db: Queryable, id: string, options: { forUpdate?: boolean } = {}): Promise<Order | undefined> {
  const { rows } = await db.query<OrderRow>(`SELECT ${columns} FROM orders.orders WHERE id = $1${options.forUpdate ? ' FOR UPDATE' : ''}`, [id]);
  return one(rows);
}

export type NewOrder = Pick<
  Order,
  | 'id'
  | 'partnerId'
  | 'clientRequestId'
  | 'fingerprint'
  | 'kind'
  | 'iccid'
  | 'planId'
  | 'planName'
  | 'supplierSku'
  | 'profileType'
  | 'countries'
  | 'region'
  | 'dataMb'
  | 'validityDays'
  | 'price'
  | 'currency'
  | 'email'
  | 'phoneNumber'
  | 'quantity'
  | 'unitPrice'
>;

/**
 * Inserts the order as 'pending'; undefined when (partner, clientRequestId)
 * is taken. ON CONFLICT waits for a concurrent insert of the same key to
 * settle, so the loser learns of the winner here rather than by an error.
 */
export async function insertPendingOrder(db: Queryable, order: NewOrder): Promise<Order | undefined> {
  const { rows } = await db.query<OrderRow>(
    `INSERT INTO orders.orders (id, partner_id, client_request_id, fingerprint, plan_id, plan_name, supplier_sku, price, currency, email, phone_number, status,
       kind, iccid, countries, region, data_mb, validity_days, quantity, unit_price, profile_type)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'pending', $12, $13, $14, $15, $16, $17, $18, $19, $20)
     ON CONFLICT (partner_id, client_request_id) DO NOTHING
     RETURNING ${columns}`,
    [
      order.id,
      order.partnerId,
      order.clientRequestId,
      order.fingerprint,
      order.planId,
      order.planName,
      order.supplierSku,
      order.price,
      order.currency,
      order.email,
      order.phoneNumber,
      order.kind,
      order.iccid,
      order.countries,
      order.region,
      order.dataMb,
      order.validityDays,
      order.quantity,
      order.unitPrice,
      order.profileType,
    ],
  );
  return one(rows);
}

/**
 * The oldest 'pending' order created before `olderThanMs` ago, other than
 * `skipIds`. Not locked: the sweeper settles it with guarded writes (see
 * settlePendingOrders).
 */
export async function findStalePendingOrder(db: Queryable, olderThanMs: number, skipIds: string[]): Promise<Order | undefined> {
  const { rows } = await db.query<OrderRow>(
    `SELECT ${columns} FROM orders.orders
     WHERE status = 'pending' AND created_at < now() - make_interval(secs => $1::double precision / 1000) AND id <> ALL($2::text[])
     ORDER BY created_at, id
     LIMIT 1`,
    [olderThanMs, skipIds],
  );
  return one(rows);
}

/**
 * Where a pass over the orders left processing stopped: the last order it
 * looked at. `updatedAt` is Postgres's own text of the timestamp, because a
 * JS Date keeps milliseconds and the column microseconds: a rounded cursor
 * would return the same order again.
 */
export interface ProcessingCursor {
  updatedAt: string;
  id: string;
}

/**
 * Up to `limit` orders 'processing' since before `olderThanMs` ago (by
 * updated_at: the payment, or the last step recorded), oldest first, after
 * `after`, with the cursor that follows the last one. Read without locks:
 * the sweeper asks their owners first and locks each one only to apply the
 * answer (lockProcessingOrder).
 */
export async function staleProcessingOrders(
  db: Queryable,
  olderThanMs: number,
  limit: number,
  after?: ProcessingCursor,
): Promise<{ orders: Order[]; last?: ProcessingCursor }> {
  const { rows } = await db.query<OrderRow & { cursor: string }>(
    `SELECT ${columns}, updated_at::text AS cursor FROM orders.orders
     WHERE status = 'processing' AND updated_at < now() - make_interval(secs => $1::double precision / 1000)
       AND ($3::timestamptz IS NULL OR (updated_at, id) > ($3::timestamptz, $4::text))
     ORDER BY updated_at, id
     LIMIT $2`,
    [olderThanMs, limit, after?.updatedAt ?? null, after?.id ?? null],
  );
  const last = rows.at(-1);
  return { orders: rows.map(toOrder), ...(last ? { last: { updatedAt: last.cursor, id: last.id } } : {}) };
}

/** Locks the order while it is still 'processing' and no one else holds it (a consumer applying its event, another replica's sweeper). */
export async function lockProcessingOrder(db: Queryable, id: string): Promise<Order | undefined> {
  const { rows } = await db.query<OrderRow>(`SELECT ${columns} FROM orders.orders WHERE id = $1 AND status = 'processing' FOR UPDATE SKIP LOCKED`, [id]);
  return one(rows);
}

export async function deletePendingOrder(db: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await db.query(`DELETE FROM orders.orders WHERE id = $1 AND status = 'pending'`, [id]);
  return rowCount === 1;
}

/** 'pending' → 'processing'; undefined when the order was not pending. */
export async function markProcessing(db: Queryable, id: string): Promise<Order | undefined> {
  const { rows } = await db.query<OrderRow>(
    `UPDATE orders.orders SET status = 'processing', updated_at = now() WHERE id = $1 AND status = 'pending' RETURNING ${columns}`,
    [id],
  );
  return one(rows);
}

/** 'processing' → 'provisioned' with the eSIM; undefined when the order was not processing. */
export async function markProvisioned(db: Queryable, id: string, esim: Omit<Esim, 'appleInstallUrl'>, supplierReference: string): Promise<Order | undefined> {
  const { rows } = await db.query<OrderRow>(
    `UPDATE orders.orders
     SET status = 'provisioned', iccid = $2, smdp_address = $3, matching_id = $4, activation_code = $5, qr_code = $6,
         supplier_reference = $7, provisioned_at = now(), updated_at = now()
     WHERE id = $1 AND status = 'processing'
     RETURNING ${columns}`,
    [id, esim.iccid, esim.smdpAddress, esim.matchingId, esim.activationCode, esim.qrCode, supplierReference],
  );
  return one(rows);
}

/** Records why provisioning failed; the order stays 'processing' until the refund is recorded. */
export async function recordFailureReason(db: Queryable, id: string, reason: string): Promise<Order | undefined> {
  const { rows } = await db.query<OrderRow>(
    `UPDATE orders.orders SET failure_reason = $2, updated_at = now()
     WHERE id = $1 AND status = 'processing' AND failure_reason IS NULL
     RETURNING ${columns}`,
    [id, reason],
  );
  return one(rows);
}

/** 'processing' → 'failed'; `fallbackReason` only when no provisioning failure was recorded. */
export async function markFailed(db: Queryable, id: string, fallbackReason: string): Promise<Order | undefined> {
  const { rows } = await db.query<OrderRow>(
    `UPDATE orders.orders SET status = 'failed', failure_reason = COALESCE(failure_reason, $2), updated_at = now()
     WHERE id = $1 AND status = 'processing'
     RETURNING ${columns}`,
    [id, fallbackReason],
  );
  return one(rows);
}

export interface OrderFilter {
  /** Undefined for every partner (operators). */
  partnerId?: string;
  /** Undefined for every visible status. */
  status?: Exclude<StoredStatus, 'pending'>;
  /** True: live accounts' orders only; false: test accounts' only; undefined: both. */
  livemode?: boolean;
}

/** Visible orders, newest first with ties by id descending, and how many match in all. */
export async function listVisibleOrders(db: Queryable, filter: OrderFilter, page: { limit: number; offset: number }): Promise<{ orders: Order[]; total: number }> {
  // A group's unit orders are its own business: the group is listed, with their eSIMs.
  const conditions = [`status <> 'pending'`, 'group_order_id IS NULL'];
  const params: unknown[] = [];
  if (filter.partnerId !== undefined) conditions.push(`partner_id = $${params.push(filter.partnerId)}`);
  if (filter.status !== undefined) conditions.push(`status = $${params.push(filter.status)}`);
  // Test mode (§14): a whole mode is picked out by the account id's form, never by a column.
  if (filter.livemode !== undefined) conditions.push(`partner_id ${filter.livemode ? 'NOT LIKE' : 'LIKE'} $${params.push(testAccountSqlPattern)}`);
  const where = conditions.join(' AND ');
  const [list, count] = await Promise.all([
    db.query<OrderRow>(`SELECT ${columns} FROM orders.orders WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`, [
      ...params,
      page.limit,
      page.offset,
    ]),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM orders.orders WHERE ${where}`, params),
  ]);
  return { orders: list.rows.map(toOrder), total: count.rows[0]?.n ?? 0 };
}
