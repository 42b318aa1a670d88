// Protects GetPlanPrice, the one price the orders service charges: it must equal what ListPlans showed the same tier, and refuse plans not on sale.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tiers } from '@esim/vocabulary';
import { createTestEnv, type CatalogClient, type TestEnv } from './support/testEnv.js';

let env: TestEnv;
let client: CatalogClient;

beforeAll(async () => {
  env = await createTestEnv();
  ({ client } = await env.start());
});
afterAll(() => env?.cleanup());

describe('GetPlanPrice', () => {
  it('when a tier asks the price of a listed plan, then it is the listed price, with name, currency and supplier SKU', async () => {
    for (const tier of tiers) {
      const { plans } = await client.listPlans({ country: 'DE', tier, page: { page: 1, limit: 100 } });
      for (const plan of plans) {
        const price = await client.getPlanPrice({ planId: plan.id, tier });
        expect(price).toMatchObject({ planId: plan.id, planName: plan.name, price: plan.wholesalePrice, currency: 'USD' });
        expect(price.supplierSku).toMatch(/^SKU-/);
      }
    }
  });

  it('when a plan is priced, then its countries, region, data and validity come with the price (a top-up is checked against them)', async () => {
    const { plans } = await client.listPlans({ country: 'FR', tier: 'standard', page: { page: 1, limit: 100 } });
    for (const plan of [plans[0]!, plans.find((p) => p.region)!]) {
      const price = await client.getPlanPrice({ planId: plan.id, tier: 'standard' });
      expect(price).toMatchObject({ countries: plan.countries, dataMb: plan.dataMb, validityDays: plan.validityDays });
      expect(price.region).toBe(plan.region);
    }
  });

  it('when the plan id is unknown or malformed, then it is PLAN_NOT_AVAILABLE', async () => {
    for (const planId of ['plan_01jgfjjz0a1rdj6z43ynhpn7zz', 'plan_nope', '', 'ptn_01jgfjjz0a1rdj6z43ynhpn79y']) {
      await expect(client.getPlanPrice({ planId, tier: 'standard' }), planId).rejects.toMatchObject({ code: 'PLAN_NOT_AVAILABLE' });
    }
  });

  it('when the tier is unknown, then it is a VALIDATION_ERROR on tier', async () => {
    const { plans } = await client.listPlans({ country: 'FR', tier: 'standard', page: { page: 1, limit: 1 } });
    await expect(client.getPlanPrice({ planId: plans[0]!.id, tier: 'vip' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ path: 'tier' }] });
  });

  it('when the plan is deactivated, then it is PLAN_NOT_AVAILABLE at once, and priced again once reactivated', async () => {
    const { plans } = await client.listPlans({ country: 'IT', tier: 'premium', page: { page: 1, limit: 1 } });
    const plan = plans[0]!;
    await client.updatePlan({ id: plan.id, plan: { active: false }, audit: { operator: 'test' } });
    await expect(client.getPlanPrice({ planId: plan.id, tier: 'premium' })).rejects.toMatchObject({ code: 'PLAN_NOT_AVAILABLE' });
    await client.updatePlan({ id: plan.id, plan: { active: true }, audit: { operator: 'test' } });
    expect((await client.getPlanPrice({ planId: plan.id, tier: 'premium' })).price).toBe(plan.wholesalePrice);
  });
});
