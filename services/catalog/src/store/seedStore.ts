import { withTransaction, type Pool } from '@esim/postgres';
import type { SeedPlan } from '../domain/seedCatalog.js';

/** The traveller columns a later seed version fills in on plans an earlier version inserted. */
const travellerColumns = ['unlimited', 'fair_use_mb', 'throttle_kbps', 'networks', 'voice', 'sms', 'kyc_required', 'top_upable', 'activation_policy'];

/**
 * Applies a named data seed once per database. The transaction-scoped
 * advisory lock makes concurrent replicas queue here; the first writes and
 * records the seed, the others then see the `seeds` row and skip. A plan an
 * operator already created with a seed SKU is kept as it is. A seed plan an
 * earlier version inserted gets this version's traveller facts, unless an
 * operator has already described its networks (then the operator's word
 * stands); its prices, name and state are never touched.
 * Returns the number of plans inserted or completed (0 when already applied).
 */
export async function applySeed(pool: Pool, name: string, plans: SeedPlan[]): Promise<number> {
  return withTransaction(pool, async (db) => {
    await db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`catalog.seeds`]);
    const applied = await db.query('SELECT 1 FROM catalog.seeds WHERE name = $1', [name]);
    if (applied.rowCount !== 0) return 0;
    // One statement for the whole seed: the plans travel as one JSON array.
    const written = await db.query(
      `INSERT INTO catalog.plans (id, name, countries, region, data_mb, validity_days, floor_price, retail_price, supplier_sku, supplier_cost, active,
         ${travellerColumns.join(', ')}, profile_type)
       SELECT id, name, countries, region, "dataMb", "validityDays", "floorPrice", "retailPrice", "supplierSku", "supplierCost", active,
         unlimited, "fairUseMb", "throttleKbps", networks, voice, sms, "kycRequired", "topUpable", "activationPolicy", "profileType"
       FROM jsonb_to_recordset($1::jsonb) AS p(id text, name text, countries text[], region text, "dataMb" int, "validityDays" int,
         "floorPrice" bigint, "retailPrice" bigint, "supplierSku" text, "supplierCost" bigint, active boolean,
         unlimited boolean, "fairUseMb" int, "throttleKbps" int, networks jsonb, voice boolean, sms boolean, "kycRequired" boolean,
         "topUpable" boolean, "activationPolicy" text, "profileType" text)
       ON CONFLICT (supplier_sku) DO UPDATE SET (${travellerColumns.join(', ')}, updated_at) =
         (${travellerColumns.map((column) => `EXCLUDED.${column}`).join(', ')}, now())
       WHERE plans.id = EXCLUDED.id AND plans.networks = '[]'::jsonb AND NOT plans.unlimited AND NOT EXCLUDED.unlimited`,
      [JSON.stringify(plans)],
    );
    await db.query('INSERT INTO catalog.seeds (name) VALUES ($1) ON CONFLICT DO NOTHING', [name]);
    return written.rowCount ?? 0;
  });
}
