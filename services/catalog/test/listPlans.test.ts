// Protects the partner catalog over gRPC: which plans a country shows, their order, paging, and the price each tier sees.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { catalogV1 } from '@esim/proto';
import { tiers } from '@esim/vocabulary';
import { priceForTier } from '../src/domain/pricing.js';
import { seedPlans } from '../src/domain/seedCatalog.js';
import { createTestEnv, type CatalogClient, type TestEnv } from './support/testEnv.js';

let env: TestEnv;
let client: CatalogClient;

beforeAll(async () => {
  env = await createTestEnv();
  ({ client } = await env.start());
});
afterAll(() => env?.cleanup());

async function listAll(country: string, tier = 'standard'): Promise<catalogV1.PartnerPlan[]> {
  const plans: catalogV1.PartnerPlan[] = [];
  for (let page = 1; ; page++) {
    const response = await client.listPlans({ country, tier, page: { page, limit: 100 } });
    plans.push(...response.plans);
    if (plans.length >= response.total) return plans;
  }
}

function expectPartnerOrder(plans: catalogV1.PartnerPlan[]): void {
  for (let i = 1; i < plans.length; i++) {
    const [a, b] = [plans[i - 1]!, plans[i]!];
    const key = (p: catalogV1.PartnerPlan) => [p.countries.length, Number(p.wholesalePrice)] as const;
    const [ka, kb] = [key(a), key(b)];
    const ordered = ka[0] < kb[0] || (ka[0] === kb[0] && (ka[1] < kb[1] || (ka[1] === kb[1] && a.id < b.id)));
    expect(ordered, `${a.name} before ${b.name}`).toBe(true);
  }
}

describe('ListPlans: what a traveller gets (§5)', () => {
  it('when the French catalog is read, then each plan names its operators there with their generations, and unlimited plans their fair use', async () => {
    const plans = await listAll('FR');
    const local = plans.find((plan) => plan.name === 'France 5 GB / 30 days')!;
    expect(local.networks.map(({ country, operator, generations }) => ({ country, operator, generations }))).toEqual([
      { country: 'FR', operator: 'Orange', generations: ['4G', '5G'] },
      { country: 'FR', operator: 'SFR', generations: ['4G', '5G'] },
      { country: 'FR', operator: 'Bouygues Telecom', generations: ['4G', '5G'] },
      { country: 'FR', operator: 'Free Mobile', generations: ['4G', '5G'] },
    ]);
    expect(local).toMatchObject({ unlimited: false, dataMb: 5120, voice: false, sms: false, kycRequired: false, topUpable: true, activationPolicy: 'first_use' });
    expect(local.fairUseMb).toBeUndefined();
    const unlimited = plans.find((plan) => plan.name === 'France Unlimited / 7 days')!;
    expect(unlimited).toMatchObject({ unlimited: true, fairUseMb: 10_240, throttleKbps: 1_024 });
    const europe = plans.find((plan) => plan.region === 'Europe')!;
    expect(europe.networks.length).toBe(europe.countries.length);
  });

  it('when filtered by unlimited, topUpable and generation, then only the plans with those facts are listed, and the total counts them', async () => {
    const all = await listAll('');
    const list = async (filter: { country?: string; generation?: string; unlimited?: boolean; topUpable?: boolean }) =>
      client.listPlans({ country: '', tier: 'standard', page: { page: 1, limit: 100 }, ...filter });
    const unlimited = await list({ unlimited: true });
    expect(unlimited.total).toBe(all.filter((plan) => plan.unlimited).length);
    expect(unlimited.total).toBeGreaterThan(0);
    expect(unlimited.plans.every((plan) => plan.unlimited)).toBe(true);
    const limited = await list({ unlimited: false });
    expect(limited.total + unlimited.total).toBe(all.length);
    const notToppable = await list({ topUpable: false });
    expect(notToppable.total).toBeGreaterThan(0);
    expect(notToppable.plans.every((plan) => !plan.topUpable)).toBe(true);
    const fiveG = await list({ generation: '5g', country: 'VN' });
    expect(fiveG.plans.every((plan) => plan.networks.some((n) => n.country === 'VN' && n.generations.includes('5G')))).toBe(true);
    expect(fiveG.plans.some((plan) => plan.countries.length === 1)).toBe(false);
    expect((await list({ generation: '5G', country: 'FR' })).total).toBeGreaterThan(0);
  });

  it('when the generation is not one the catalog knows, then it is a VALIDATION_ERROR naming it', async () => {
    await expect(client.listPlans({ country: '', tier: 'standard', generation: '6G' })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ path: 'generation' }],
    });
  });
});

describe('ListPlans', () => {
  it('when coversAll lists countries, then exactly the active plans covering every one of them are listed, in partner order', async () => {
    const all = await listAll('');
    const expected = all.filter((plan) => plan.countries.includes('FR') && plan.countries.includes('DE')).map((plan) => plan.id);
    const response = await client.listPlans({ country: '', tier: 'standard', coversAll: ['fr', 'DE'], page: { page: 1, limit: 100 } });
    expect(expected.length).toBeGreaterThan(0);
    expect(response.plans.map((plan) => plan.id)).toEqual(expected);
    expect(response.total).toBe(expected.length);
    expect(response.plans.some((plan) => plan.countries.length === 1)).toBe(false);
  });

  it('when coversAll holds something that is not a country code, then it is a VALIDATION_ERROR naming the entry', async () => {
    await expect(client.listPlans({ country: '', tier: 'standard', coversAll: ['FR', 'XX'] })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ path: 'coversAll.1' }],
    });
  });

  it('when a country is given, then only active plans covering it are listed, local ones first, then by price', async () => {
    const plans = await listAll('FR');
    expect(plans.every((plan) => plan.countries.includes('FR'))).toBe(true);
    expect(plans.filter((plan) => plan.countries.length === 1).map((plan) => plan.name)).toEqual([
      'France 1 GB / 7 days',
      'France 3 GB / 15 days',
      'France 5 GB / 30 days',
      'France 10 GB / 30 days',
      'France Unlimited / 7 days',
      'France 20 GB / 30 days',
      'France Unlimited / 15 days',
    ]);
    expect(new Set(plans.filter((plan) => plan.region).map((plan) => plan.region))).toEqual(new Set(['Europe', 'Global']));
    expectPartnerOrder(plans);
  });

  it('when a regional plan covers several countries, then it is listed under each of them', async () => {
    const regional = seedPlans().filter((plan) => plan.supplierSku === 'SKU-EUROPE-10GB-30D' || plan.supplierSku === 'SKU-OCEANIA-5GB-30D');
    for (const plan of regional) {
      for (const country of plan.countries) {
        const ids = (await listAll(country)).map((p) => p.id);
        expect(ids, `${plan.name} under ${country}`).toContain(plan.id);
      }
    }
  });

  it('when the country is valid but no plan covers it, then the list is empty with total 0', async () => {
    expect(await client.listPlans({ country: 'AQ', tier: 'standard' })).toMatchObject({ plans: [], total: 0 });
  });

  it('when the country is lower case, then it is read as upper case', async () => {
    const lower = await client.listPlans({ country: 'jp', tier: 'standard' });
    const upper = await client.listPlans({ country: 'JP', tier: 'standard' });
    expect(lower.total).toBeGreaterThan(0);
    expect(lower.plans.map((p) => p.id)).toEqual(upper.plans.map((p) => p.id));
  });

  it('when the country is not an ISO 3166-1 alpha-2 code, then it is a VALIDATION_ERROR on country', async () => {
    for (const country of ['XX', 'UK', 'XK', 'FRA', 'F', '12']) {
      await expect(client.listPlans({ country, tier: 'standard' }), country).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
        errors: [{ path: 'country' }],
      });
    }
  });

  it('when no country is given, then every active plan is listed in partner order', async () => {
    const plans = await listAll('');
    expect(plans).toHaveLength(seedPlans().length);
    expectPartnerOrder(plans);
  });

  it('when paging, then pages concatenate to the whole list, total counts before paging and a page past the end is empty', async () => {
    const whole = await listAll('');
    const paged: string[] = [];
    for (let page = 1; page <= Math.ceil(whole.length / 7); page++) {
      const response = await client.listPlans({ country: '', tier: 'premium', page: { page, limit: 7 } });
      expect(response.total).toBe(whole.length);
      expect(response.plans.length).toBeLessThanOrEqual(7);
      paged.push(...response.plans.map((p) => p.id));
    }
    expect(paged).toEqual((await listAll('', 'premium')).map((p) => p.id));
    const past = await client.listPlans({ country: '', tier: 'standard', page: { page: 1000, limit: 100 } });
    expect(past).toMatchObject({ plans: [], total: whole.length });
  });

  it('when no page is given, then the first 50 are returned', async () => {
    const response = await client.listPlans({ country: '', tier: 'standard' });
    expect(response.plans).toHaveLength(50);
  });

  it('when the page or limit is out of range, then it is a VALIDATION_ERROR naming the field', async () => {
    await expect(client.listPlans({ tier: 'standard', page: { page: 1, limit: 101 } })).rejects.toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ path: 'limit' }] });
    await expect(client.listPlans({ tier: 'standard', page: { page: -1, limit: 10 } })).rejects.toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ path: 'page' }] });
  });

  it('when the tier is missing or unknown, then it is a VALIDATION_ERROR on tier', async () => {
    for (const tier of ['', 'gold']) {
      await expect(client.listPlans({ country: 'FR', tier })).rejects.toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ path: 'tier' }] });
    }
  });

  it('when each tier lists the catalog, then every wholesale price is that tier applied to the floor, in the configured currency', async () => {
    const floors = new Map(seedPlans().map((plan) => [plan.id, plan.floorPrice]));
    for (const tier of tiers) {
      for (const plan of await listAll('', tier)) {
        expect(plan.wholesalePrice).toBe(BigInt(priceForTier(floors.get(plan.id)!, tier)));
        expect(plan.currency).toBe('USD');
      }
    }
  });

  it('when a plan is listed, then it carries only the partner fields (no floor, retail, supplier or cost)', async () => {
    const [plan] = (await client.listPlans({ country: 'FR', tier: 'standard', page: { page: 1, limit: 1 } })).plans;
    const fields = Object.keys(plan!).filter((key) => !key.startsWith('$'));
    expect(fields.sort()).toEqual([
      'activationPolicy',
      'countries',
      'currency',
      'dataMb',
      'id',
      'kycRequired',
      'name',
      'networks',
      'sms',
      'topUpable',
      'unlimited',
      'validityDays',
      'voice',
      'wholesalePrice',
    ]);
  });
});
