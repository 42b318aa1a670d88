// Protects cache coherence between catalog replicas: a change made on one replica reaches every replica's in-memory plans promptly, and a missed event is healed by the periodic reload.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, eventually, type TestCatalog, type TestEnv } from './support/testEnv.js';

let env: TestEnv;
let a: TestCatalog;
let b: TestCatalog;

const propagationMs = 2_000;
const audit = { operator: 'replica-test', requestId: '' };

beforeAll(async () => {
  env = await createTestEnv();
  [a, b] = await Promise.all([env.start(), env.start()]);
});
afterAll(() => env?.cleanup());

async function listedIn(replica: TestCatalog, country: string): Promise<string[]> {
  const { plans } = await replica.client.listPlans({ country, tier: 'standard', page: { page: 1, limit: 100 } });
  return plans.map((plan) => plan.id);
}

describe('replicas sharing a database and a namespace', () => {
  it('when a plan is deactivated on one replica, then it leaves that replica at once and the other within 2 s', async () => {
    const [planId] = await listedIn(a, 'GR');
    expect(await listedIn(b, 'GR')).toContain(planId);
    await a.client.updatePlan({ id: planId!, plan: { active: false }, audit });
    expect(await listedIn(a, 'GR')).not.toContain(planId);
    expect(await eventually(async () => !(await listedIn(b, 'GR')).includes(planId!), propagationMs)).toBe(true);
    await expect(b.client.getPlanPrice({ planId: planId!, tier: 'standard' })).rejects.toMatchObject({ code: 'PLAN_NOT_AVAILABLE' });
  });

  it('when a plan is created on one replica, then the other can read and price it by id at once and lists it within 2 s', async () => {
    const created = await a.client.createPlan({
      plan: { name: 'Malta 2 GB / 7 days', countries: ['MT'], dataMb: 2048, validityDays: 7, floorPrice: 399n, retailPrice: 799n, supplierSku: 'SKU-MT-2GB-7D', supplierCost: 250n },
      audit,
    });
    expect(await b.client.adminGetPlan({ id: created.id })).toEqual(created);
    expect((await b.client.getPlanPrice({ planId: created.id, tier: 'premium' })).price).toBe(439n);
    expect(await eventually(async () => (await listedIn(b, 'MT')).includes(created.id), propagationMs)).toBe(true);
  });

  it('when a change event is missed, then the periodic reload brings the replica up to date', async () => {
    const fast = await env.start({ CATALOG_REFRESH_MS: '1000' });
    const [planId] = await listedIn(fast, 'NO');
    // Written behind the service's back: no outbox row, so no event; only the periodic reload can see it.
    await env.query(`UPDATE catalog.plans SET active = false WHERE id = $1`, [planId]);
    expect(await eventually(async () => !(await listedIn(fast, 'NO')).includes(planId!), 2_500)).toBe(true);
  });
});
