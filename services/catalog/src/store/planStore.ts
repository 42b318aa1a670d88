import type { Queryable } from '@esim/postgres';
import type { Plan, PlanFields } from '../domain/plan.js';

/** SQL for catalog.plans; nothing outside src/store writes SQL against it. */
const columns = `id, name, countries, region, data_mb, validity_days, floor_price, retail_price,
  supplier_sku, supplier_cost, active, created_at, updated_at`;

interface PlanRow {
  id: string;
  name: string;
  countries: string[];
  region: string | null;
  data_mb: number;
  validity_days: number;
  floor_price: number;
  retail_price: number;
  supplier_sku: string;
  supplier_cost: number;
  active: boolean;
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
    `INSERT INTO catalog.plans (id, name, countries, region, data_mb, validity_days, floor_price, retail_price, supplier_sku, supplier_cost, active)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
     ON CONFLICT (supplier_sku) DO NOTHING
     RETURNING ${columns}`,
    [id, plan.name, plan.countries, plan.region, plan.dataMb, plan.validityDays, plan.floorPrice, plan.retailPrice, plan.supplierSku, plan.supplierCost, plan.active],
  );
  return rows[0] ? toPlan(rows[0]) : undefined;
}

/** Writes every field of `plan` (the caller merged the patch) and bumps updated_at. */
export async function updatePlanRow(db: Queryable, id: string, plan: PlanFields): Promise<Plan> {
  const { rows } = await db.query<PlanRow>(
    `UPDATE catalog.plans SET name = $2, countries = $3, region = $4, data_mb = $5, validity_days = $6, floor_price = $7,
       retail_price = $8, supplier_sku = $9, supplier_cost = $10, active = $11, updated_at = now()
     WHERE id = $1
     RETURNING ${columns}`,
    [id, plan.name, plan.countries, plan.region, plan.dataMb, plan.validityDays, plan.floorPrice, plan.retailPrice, plan.supplierSku, plan.supplierCost, plan.active],
  );
  if (!rows[0]) throw new Error(`plan ${id} vanished while locked`);
  return toPlan(rows[0]);
}
