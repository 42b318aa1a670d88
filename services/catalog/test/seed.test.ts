// Protects the development catalog: loaded on first start, big and varied enough to demo, and never duplicated however many replicas start at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedName, seedPlans } from '../src/domain/seedCatalog.js';
import { createTestEnv, type CatalogClient, type TestCatalog, type TestEnv } from './support/testEnv.js';

let env: TestEnv;
let first: TestCatalog;
let client: CatalogClient;

async function allAdminPlans(c: CatalogClient) {
  const plans = [];
  for (let page = 1; ; page++) {
    const response = await c.adminListPlans({ page: { page, limit: 100 } });
    plans.push(...response.plans);
    if (response.plans.length < 100) return { plans, total: response.total };
  }
}

async function planRows(): Promise<number> {
  const [row] = await env.query<{ n: number }>('SELECT count(*)::int AS n FROM catalog.plans');
  return row?.n ?? -1;
}

beforeAll(async () => {
  env = await createTestEnv();
  // Two replicas booting together on an empty database: migrations and seed race for real.
  [first] = await Promise.all([env.start(), env.start()]);
  client = first.client;
});
afterAll(() => env?.cleanup());

describe('development catalog', () => {
  it('when two instances start together on a fresh database, then the seed is applied exactly once', async () => {
    expect(await planRows()).toBe(seedPlans().length);
    expect(await env.query('SELECT name FROM catalog.seeds')).toEqual([{ name: seedName }]);
  });

  it('when a further instance starts on a seeded database, then the plan count is unchanged', async () => {
    const before = await planRows();
    const third = await env.start();
    expect(await planRows()).toBe(before);
    expect(third.app.facts.plans).toBe(before);
  });

  it('when the seed is listed, then it has at least 100 plans over at least 40 countries, with regional plans for every region', async () => {
    const { plans, total } = await allAdminPlans(client);
    expect(total).toBeGreaterThanOrEqual(100);
    expect(plans).toHaveLength(total);
    expect(new Set(plans.flatMap((plan) => plan.countries)).size).toBeGreaterThanOrEqual(40);
    const regions = new Set(plans.flatMap((plan) => (plan.region ? [plan.region] : [])));
    expect([...regions].sort()).toEqual(['Africa', 'Asia', 'Europe', 'Global', 'Latin America', 'Middle East', 'North America', 'Oceania']);
    for (const plan of plans.filter((p) => p.region)) expect(plan.countries.length).toBeGreaterThan(1);
  });

  it('when seed plans are read, then every one is active, priced retail > floor > cost, named and SKU-d like the contract', async () => {
    const { plans } = await allAdminPlans(client);
    for (const plan of plans) {
      expect(plan.active).toBe(true);
      expect(plan.retailPrice > plan.floorPrice && plan.floorPrice > plan.supplierCost, plan.supplierSku).toBe(true);
      expect(plan.name).toMatch(/^[A-Za-z ]+ (\d+ GB|Unlimited) \/ \d+ days$/);
      expect(plan.supplierSku).toMatch(/^SKU-[A-Z]+-(\d+GB|UNL)-\d+D$/);
      expect(plan.supplierSku).not.toMatch(/^(FAIL|FLAKY)-/);
    }
    const france = plans.find((plan) => plan.supplierSku === 'SKU-FR-5GB-30D');
    expect(france).toMatchObject({ name: 'France 5 GB / 30 days', countries: ['FR'], dataMb: 5120, validityDays: 30, currency: 'USD' });
    expect(france?.region).toBeUndefined();
  });

  it('when a database seeded by the first version starts, then its seed plans get their traveller facts and the unlimited plans appear, operators\' words kept', async () => {
    // The first seed's state: limited plans only, no traveller facts; one plan an operator has since described.
    await env.query(`DELETE FROM catalog.plans WHERE unlimited`);
    await env.query(`UPDATE catalog.plans SET networks = '[]', voice = false, sms = false, kyc_required = false, top_upable = true, activation_policy = 'first_use'`);
    await env.query(`UPDATE catalog.plans SET networks = '[{"country":"DE","operator":"Operator Own","generations":["4G"]}]' WHERE supplier_sku = 'SKU-DE-1GB-7D'`);
    await env.query(`UPDATE catalog.plans SET floor_price = 12345 WHERE supplier_sku = 'SKU-FR-1GB-7D'`);
    await env.query(`DELETE FROM catalog.seeds`);
    await env.query(`INSERT INTO catalog.seeds (name) VALUES ('dev-catalog-v1')`);
    await env.start();
    expect(await planRows()).toBe(seedPlans().length);
    const rows = await env.query<{ supplier_sku: string; networks: { operator: string }[]; floor_price: number }>(
      `SELECT supplier_sku, networks, floor_price FROM catalog.plans WHERE supplier_sku IN ('SKU-FR-1GB-7D', 'SKU-DE-1GB-7D', 'SKU-CN-1GB-7D') ORDER BY supplier_sku`,
    );
    expect(rows.map((row) => [row.supplier_sku, row.networks[0]?.operator, Number(row.floor_price)])).toEqual([
      ['SKU-CN-1GB-7D', 'China Mobile', seedPlans().find((plan) => plan.supplierSku === 'SKU-CN-1GB-7D')!.floorPrice],
      ['SKU-DE-1GB-7D', 'Operator Own', seedPlans().find((plan) => plan.supplierSku === 'SKU-DE-1GB-7D')!.floorPrice],
      ['SKU-FR-1GB-7D', 'Orange', 12345],
    ]);
    const [china] = await env.query<{ kyc_required: boolean; top_upable: boolean }>(`SELECT kyc_required, top_upable FROM catalog.plans WHERE supplier_sku = 'SKU-CN-1GB-7D'`);
    expect(china).toEqual({ kyc_required: true, top_upable: false });
    expect((await env.query<{ name: string }>('SELECT name FROM catalog.seeds ORDER BY name')).map((row) => row.name)).toEqual(['dev-catalog-v1', seedName]);
  });

  it('when the catalog is up, then /readyz reports postgres and nats reachable', async () => {
    const response = await fetch(`http://127.0.0.1:${first.app.ports.health}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ready', checks: { postgres: 'ok', nats: 'ok' } });
  });

  it('when the seed is generated twice, then it is identical (same ids, same prices)', () => {
    expect(seedPlans()).toEqual(seedPlans());
  });
});
