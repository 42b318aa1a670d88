import { withTransaction, type Pool } from '@esim/postgres';
import type { SeedPlan } from '../domain/seedCatalog.js';

/**
 * Applies a named data seed once per database. The transaction-scoped
 * advisory lock makes concurrent replicas queue here; the first inserts and
 * records the seed, the others then see the `seeds` row and skip. ON CONFLICT
 * keeps a plan an operator already created with a seed SKU.
 * Returns the number of plans inserted (0 when the seed was already applied).
 */
export async function applySeed(pool: Pool, name: string, plans: SeedPlan[]): Promise<number> {
  return withTransaction(pool, async (db) => {
    await db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`catalog.seeds`]);
    const applied = await db.query('SELECT 1 FROM catalog.seeds WHERE name = $1', [name]);
    if (applied.rowCount !== 0) return 0;
    // One statement for the whole seed: the plans travel as one JSON array.
    const inserted = await db.query(
      `INSERT INTO catalog.plans (id, name, countries, region, data_mb, validity_days, floor_price, retail_price, supplier_sku, supplier_cost, active)
       SELECT id, name, countries, region, "dataMb", "validityDays", "floorPrice", "retailPrice", "supplierSku", "supplierCost", active
       FROM jsonb_to_recordset($1::jsonb) AS p(id text, name text, countries text[], region text, "dataMb" int, "validityDays" int,
         "floorPrice" bigint, "retailPrice" bigint, "supplierSku" text, "supplierCost" bigint, active boolean)
       ON CONFLICT (supplier_sku) DO NOTHING`,
      [JSON.stringify(plans)],
    );
    await db.query('INSERT INTO catalog.seeds (name) VALUES ($1) ON CONFLICT DO NOTHING', [name]);
    return inserted.rowCount ?? 0;
  });
}
