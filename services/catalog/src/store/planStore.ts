import type { Queryable } from '@esim/postgres';
import type { ActivationPolicy } from '@esim/vocabulary';
import type { Plan, PlanFields, PlanNetwork } from '../domain/plan.js';

/** SQL for catalog.plans; nothing outside src/store writes SQL against it. */
const columns = `id, name, countries, region, data_mb, validity_days, floor_price, retail_price,
  supplier_sku, supplier_cost, active, unlimited, fair_use_mb, throttle_kbps, networks, voice, sms, kyc_required, top_upable,
  activation_policy, profile_type, created_at, updated_at`;

/** The columns a write sets, in the order of `values`. */
const writable = `name, countries, region, data_mb, validity_days, floor_price, retail_price, supplier_sku, supplier_cost, active,
  unlimited, fair_use_mb, throttle_kbps, networks, voice, sms, kyc_required, top_upable, activation_policy, profile_type`;

function values(plan: PlanFields): unknown[] {
  return [
    plan.name,
    plan.countries,
    plan.region,
    plan.dataMb,
    plan.validityDays,
    plan.floorPrice,
    plan.retailPrice,
    plan.supplierSku,
    plan.supplierCost,
    plan.active,
    plan.unlimited,
    plan.fairUseMb,
    plan.throttleKbps,
    JSON.stringify(plan.networks),
    plan.voice,
    plan.sms,
    plan.kycRequired,
    plan.topUpable,
    plan.activationPolicy,
    plan.profileType,
  ];
}

interface PlanRow {
  id: string;
  name: string;
  countries: string[];
  region: string | null;
  data_mb: number | null;
  validity_days: number;
  floor_price: number;
  retail_price: number;
  supplier_sku: string;
  supplier_cost: number;
  active: boolean;
  unlimited: boolean;
  fair_use_mb: number | null;
  throttle_kbps: number | null;
  networks: PlanNetwork[];
  voice: boolean;
  sms: boolean;
  kyc_required: boolean;
  top_upable: boolean;
  activation_policy: ActivationPolicy;
  profile_type: string | null;
  created_at: Date;
  updated_at: Date;
}

function toPlan(row: PlanRow): Plan {
  return {
    id: row.id,
    name: row.name,
    countries: row.countries,
    region: row.region,
    dataMb: row.data_mb,
    validityDays: row.validity_days,
    floorPrice: row.floor_price,
    retailPrice: row.retail_price,
    supplierSku: row.supplier_sku,
    supplierCost: row.supplier_cost,
    active: row.active,
    unlimited: row.unlimited,
    fairUseMb: row.fair_use_mb,
    throttleKbps: row.throttle_kbps,
    networks: row.networks,
    voice: row.voice,
    sms: row.sms,
    kycRequired: row.kyc_required,
    topUpable: row.top_upable,
    activationPolicy: row.activation_policy,
    profileType: row.profile_type,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The whole catalog: a few hundred rows, read at start and on each change. */
export async function loadAllPlans(db: Queryable): Promise<Plan[]> {
  const { rows } = await db.query<PlanRow>(`SELECT ${columns} FROM catalog.plans`);
  return rows.map(toPlan);
}

export async function findPlan(db: Queryable, id: string, options: { forUpdate?: boolean } = {}): Promise<Plan | undefined> {
  const { rows } = await db.query<PlanRow>(`SELECT ${columns} FROM catalog.plans WHERE id = $1${options.forUpdate ? ' FOR UPDATE' : ''}`, [id]);
  return rows[0] ? toPlan(rows[0]) : undefined;
}

/** The id of the plan using `sku`, if any. */
export async function planIdBySku(db: Queryable, sku: string): Promise<string | undefined> {
  const { rows } = await db.query<{ id: string }>('SELECT id FROM catalog.plans WHERE supplier_sku = $1', [sku]);
  return rows[0]?.id;
}

/**
 * Inserts a plan; undefined when its SKU is taken. ON CONFLICT waits for a
 * concurrent insert of the same SKU to settle, so the loser learns of it here.
 */
export async function insertPlan(db: Queryable, id: string, plan: PlanFields): Promise<Plan | undefined> {
  const { rows } = await db.query<PlanRow>(
    `INSERT INTO catalog.plans (id, ${writable})
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)
     ON CONFLICT (supplier_sku) DO NOTHING
     RETURNING ${columns}`,
    [id, ...values(plan)],
  );
  return rows[0] ? toPlan(rows[0]) : undefined;
}

/** Writes every field of `plan` (the caller merged the patch) and bumps updated_at. */
export async function updatePlanRow(db: Queryable, id: string, plan: PlanFields): Promise<Plan> {
  const { rows } = await db.query<PlanRow>(
    `UPDATE catalog.plans SET (${writable}, updated_at) =
       ($2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, now())
     WHERE id = $1
     RETURNING ${columns}`,
    [id, ...values(plan)],
  );
  if (!rows[0]) throw new Error(`plan ${id} vanished while locked`);
  return toPlan(rows[0]);
}
