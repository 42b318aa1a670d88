import { testAccountSqlPattern } from '@esim/ids';
import type { Queryable } from '@esim/postgres';
import type { BundleStatus, EsimStatus } from '@esim/vocabulary';
import type { BundleRecord, EsimRecord, EsimState } from '../esims/esim.js';

/** SQL for orders.esims and orders.bundles; nothing outside src/store writes SQL against them. */

/** A group's unit order is internal: partners are shown the group's id in its place (contract §7). */
const shownOrderId = (table: string) =>
  `COALESCE((SELECT o.group_order_id FROM orders.orders o WHERE o.id = ${table}.order_id), ${table}.order_id) AS shown_order_id`;
const esimColumns = `iccid, partner_id, order_id, status, smdp_address, matching_id, activation_code, countries, region, installed_at,
  usage_updated_at, created_at, updated_at, eid, last_error, suspended, deleted_at, ${shownOrderId('esims')}`;
const bundleColumns = `order_id, iccid, seq, plan_id, plan_name, data_mb, data_used_mb, validity_days, status, activated_at, expires_at,
  threshold_80_at, threshold_100_at, ${shownOrderId('bundles')}`;

interface EsimRow {
  iccid: string;
  partner_id: string;
  order_id: string;
  status: EsimStatus;
  smdp_address: string;
  matching_id: string;
  activation_code: string;
  countries: string[];
  region: string | null;
  installed_at: Date | null;
  usage_updated_at: Date | null;
  created_at: Date;
  updated_at: Date;
  eid: string | null;
  last_error: { at: string; notificationPoint: number; reasonCode: string | null; message: string | null } | null;
  suspended: boolean;
  deleted_at: Date | null;
  shown_order_id: string;
}

interface BundleRow {
  order_id: string;
  iccid: string;
  seq: string;
  plan_id: string;
  plan_name: string;
  data_mb: number;
  data_used_mb: number;
  validity_days: number;
  status: BundleStatus;
  activated_at: Date | null;
  expires_at: Date | null;
  threshold_80_at: Date | null;
  threshold_100_at: Date | null;
  shown_order_id: string;
}

const toEsim = (row: EsimRow): EsimRecord => ({
  iccid: row.iccid,
  partnerId: row.partner_id,
  orderId: row.order_id,
  shownOrderId: row.shown_order_id,
  status: row.status,
  smdpAddress: row.smdp_address,
  matchingId: row.matching_id,
  activationCode: row.activation_code,
  countries: row.countries,
  region: row.region,
  installedAt: row.installed_at,
  usageUpdatedAt: row.usage_updated_at,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  eid: row.eid,
  lastError: row.last_error ? { ...row.last_error, at: new Date(row.last_error.at) } : null,
  suspended: row.suspended,
  deletedAt: row.deleted_at,
});

const toBundle = (row: BundleRow): BundleRecord => ({
  orderId: row.order_id,
  shownOrderId: row.shown_order_id,
  iccid: row.iccid,
  seq: Number(row.seq),
  planId: row.plan_id,
  planName: row.plan_name,
  dataMb: row.data_mb,
  dataUsedMb: row.data_used_mb,
  validityDays: row.validity_days,
  status: row.status,
  activatedAt: row.activated_at,
  expiresAt: row.expires_at,
  threshold80At: row.threshold_80_at,
  threshold100At: row.threshold_100_at,
});

/**
 * Serialises everything that changes one eSIM (notifications, provisioning,
 * cancellation, top-up creation) for the caller's transaction. An advisory
 * lock rather than the row's: it also orders writers before the row exists
 * (a notification that arrives before provisioning has recorded the eSIM).
 */
export async function lockEsimKey(db: Queryable, iccid: string): Promise<void> {
  await db.query(`SELECT pg_advisory_xact_lock(hashtextextended('orders.esim:' || $1, 0))`, [iccid]);
}

export async function findEsim(db: Queryable, iccid: string): Promise<EsimRecord | undefined> {
  const { rows } = await db.query<EsimRow>(`SELECT ${esimColumns} FROM orders.esims WHERE iccid = $1`, [iccid]);
  return rows[0] ? toEsim(rows[0]) : undefined;
}

export async function bundlesOf(db: Queryable, iccids: string[]): Promise<BundleRecord[]> {
  const { rows } = await db.query<BundleRow>(`SELECT ${bundleColumns} FROM orders.bundles WHERE iccid = ANY($1::text[]) ORDER BY seq`, [iccids]);
  return rows.map(toBundle);
}

export async function findEsimState(db: Queryable, iccid: string): Promise<EsimState | undefined> {
  const esim = await findEsim(db, iccid);
  return esim ? { esim, bundles: await bundlesOf(db, [iccid]) } : undefined;
}

export type NewEsim = Pick<EsimRecord, 'iccid' | 'partnerId' | 'orderId' | 'smdpAddress' | 'matchingId' | 'activationCode' | 'countries' | 'region'>;

/** Inserts a released eSIM; false when the ICCID is already known. */
export async function insertEsim(db: Queryable, esim: NewEsim): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO orders.esims (iccid, partner_id, order_id, status, smdp_address, matching_id, activation_code, countries, region)
     VALUES ($1, $2, $3, 'released', $4, $5, $6, $7, $8) ON CONFLICT (iccid) DO NOTHING`,
    [esim.iccid, esim.partnerId, esim.orderId, esim.smdpAddress, esim.matchingId, esim.activationCode, esim.countries, esim.region],
  );
  return rowCount === 1;
}

export type NewBundle = Pick<BundleRecord, 'orderId' | 'iccid' | 'planId' | 'planName' | 'dataMb' | 'validityDays'>;

/** Inserts a queued bundle; false when the order already has one. */
export async function insertBundle(db: Queryable, bundle: NewBundle): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO orders.bundles (order_id, iccid, plan_id, plan_name, data_mb, validity_days, status)
     VALUES ($1, $2, $3, $4, $5, $6, 'queued') ON CONFLICT (order_id) DO NOTHING`,
    [bundle.orderId, bundle.iccid, bundle.planId, bundle.planName, bundle.dataMb, bundle.validityDays],
  );
  return rowCount === 1;
}

/** Writes an eSIM's changed fields back (the caller holds the eSIM's lock). */
export async function saveEsim(db: Queryable, esim: EsimRecord): Promise<void> {
  await db.query(
    `UPDATE orders.esims SET status = $2, installed_at = $3, usage_updated_at = $4, updated_at = $5, eid = $6, last_error = $7, suspended = $8,
       deleted_at = $9
     WHERE iccid = $1`,
    [
      esim.iccid,
      esim.status,
      esim.installedAt,
      esim.usageUpdatedAt,
      esim.updatedAt,
      esim.eid,
      esim.lastError ? JSON.stringify({ ...esim.lastError, at: esim.lastError.at.toISOString() }) : null,
      esim.suspended,
      esim.deletedAt,
    ],
  );
}

/** Writes a bundle's changed fields back (the caller holds its eSIM's lock). */
export async function saveBundle(db: Queryable, bundle: BundleRecord): Promise<void> {
  await db.query(
    `UPDATE orders.bundles SET status = $2, data_used_mb = $3, activated_at = $4, expires_at = $5, threshold_80_at = $6, threshold_100_at = $7,
       updated_at = now()
     WHERE order_id = $1`,
    [bundle.orderId, bundle.status, bundle.dataUsedMb, bundle.activatedAt, bundle.expiresAt, bundle.threshold80At, bundle.threshold100At],
  );
}

export interface EsimFilter {
  partnerId?: string;
  status?: EsimStatus;
  /** True: live accounts' eSIMs only; false: test accounts' only; undefined: both. */
  livemode?: boolean;
}

/** eSIMs newest first (ties by ICCID descending), with their bundles, and how many match in all. */
export async function listEsimStates(db: Queryable, filter: EsimFilter, page: { limit: number; offset: number }): Promise<{ esims: EsimState[]; total: number }> {
  const conditions = ['true'];
  const params: unknown[] = [];
  if (filter.partnerId !== undefined) conditions.push(`partner_id = $${params.push(filter.partnerId)}`);
  if (filter.status !== undefined) conditions.push(`status = $${params.push(filter.status)}`);
  // Test mode (§14): a whole mode is picked out by the account id's form, never by a column.
  if (filter.livemode !== undefined) conditions.push(`partner_id ${filter.livemode ? 'NOT LIKE' : 'LIKE'} $${params.push(testAccountSqlPattern)}`);
  const where = conditions.join(' AND ');
  const [list, count] = await Promise.all([
    db.query<EsimRow>(`SELECT ${esimColumns} FROM orders.esims WHERE ${where} ORDER BY created_at DESC, iccid DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`, [
      ...params,
      page.limit,
      page.offset,
    ]),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM orders.esims WHERE ${where}`, params),
  ]);
  const esims = list.rows.map(toEsim);
  const bundles = esims.length === 0 ? [] : await bundlesOf(db, esims.map((esim) => esim.iccid));
  return {
    esims: esims.map((esim) => ({ esim, bundles: bundles.filter((bundle) => bundle.iccid === esim.iccid) })),
    total: count.rows[0]?.n ?? 0,
  };
}
