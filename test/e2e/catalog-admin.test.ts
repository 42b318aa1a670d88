// Protects operator plan management of §5/§10 through the admin API: create, read, update, validation, audit, and the idempotent development seed.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, api, control, onboardPartner, until, withKey, type Answer, type Onboarded } from './support/client.js';

const timestamp = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const unknownIds = ['plan_01jzzzzzzzzzzzzzzzzzzzzzzz', 'plan_00000000000000000000000000', 'nonsense', 'ptn_01jzzzzzzzzzzzzzzzzzzzzzzz', '%20'];

/** Plans this file created; every one is left inactive at the end, so other files see the catalog as seeded. */
const created: string[] = [];

function planBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const tag = randomBytes(4).toString('hex').toUpperCase();
  return {
    name: `E2E Germany 7 GB / 14 days ${tag}`,
    countries: ['DE'],
    region: null,
    dataMb: 7168,
    validityDays: 14,
    floorPrice: 1449,
    retailPrice: 2799,
    supplierSku: `E2E-ADMIN-${tag}`,
    supplierCost: 1035,
    ...overrides,
  };
}

async function create(body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Answer> {
  const answer = await admin('/plans', { body, headers });
  if (answer.status === 201) created.push(answer.body.id);
  return answer;
}

function expectValidationError(answer: Answer, path: string | RegExp): void {
  expect(answer.status, answer.text).toBe(400);
  expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(answer.body.code).toBe('VALIDATION_ERROR');
  const paths = (answer.body.errors as Array<{ path: string }>).map((e) => e.path);
  expect(paths).toEqual(expect.arrayContaining([typeof path === 'string' ? path : expect.stringMatching(path)]));
}

let partner: Onboarded;
beforeAll(async () => {
  partner = await onboardPartner('premium');
});

afterAll(async () => {
  for (const id of created) await admin(`/plans/${id}`, { method: 'PATCH', body: { active: false } });
});

describe('creating a plan', () => {
  it('when the operator creates a plan, then 201 echoes every internal field and the plan.created audit entry arrives', async () => {
    const body = planBody({ countries: ['de', 'at', 'Ch'], region: 'E2E Alps' });
    const answer = await create(body, { 'x-operator': 'ops-carol' });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body).toEqual({
      id: expect.stringMatching(/^plan_[0-9a-z]{26}$/),
      name: body.name,
      countries: ['DE', 'AT', 'CH'],
      region: 'E2E Alps',
      dataMb: 7168,
      validityDays: 14,
      floorPrice: 1449,
      retailPrice: 2799,
      supplierSku: body.supplierSku,
      supplierCost: 1035,
      active: true,
      currency: 'USD',
      unlimited: false,
      fairUseMb: null,
      throttleKbps: null,
      networks: [],
      voice: false,
      sms: false,
      kycRequired: false,
      topUpable: true,
      activationPolicy: 'first_use',
      profileType: null,
      createdAt: expect.stringMatching(timestamp),
      updatedAt: expect.stringMatching(timestamp),
    });

    // The audit entry travels through the outbox and JetStream to the partners service.
    const entry = await until(async () => {
      const log = await admin('/audit?limit=100');
      return (log.body.data as Array<{ action: string; target: string }>).find((e) => e.action === 'plan.created' && e.target === answer.body.id);
    }, 'the plan.created audit entry');
    expect(entry).toMatchObject({ operator: 'admin-token', requestId: expect.any(String), createdAt: expect.stringMatching(timestamp) });
    expect(entry).toHaveProperty(['details', 'supplierSku'], body.supplierSku);

    // A premium partner sees it in Austria at its tier price: (1449 × 110 + 50) div 100 = 1594.
    const listed = await api('/partner/catalog?country=at&limit=100', withKey(partner.apiKey));
    const mine = listed.body.data.find((p: { id: string }) => p.id === answer.body.id);
    expect(mine).toEqual({
      id: answer.body.id,
      name: body.name,
      countries: ['DE', 'AT', 'CH'],
      region: 'E2E Alps',
      dataMb: 7168,
      validityDays: 14,
      wholesalePrice: 1594,
      currency: 'USD',
      unlimited: false,
      fairUseMb: null,
      throttleKbps: null,
      networks: [],
      voice: false,
      sms: false,
      kycRequired: false,
      topUpable: true,
      activationPolicy: 'first_use',
    });
  });

  it('when the plan is read back, then GET answers what create answered', async () => {
    const made = await create(planBody());
    const read = await admin(`/plans/${made.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(made.body);
  });

  it('when region and active are left out, then the plan is local and active', async () => {
    const { region: _region, ...body } = planBody();
    const made = await create(body);
    expect(made.status, made.text).toBe(201);
    expect(made.body).toMatchObject({ region: null, active: true });
  });

  it('when every field is missing, then 400 names each required field', async () => {
    const answer = await create({});
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('VALIDATION_ERROR');
    const paths = (answer.body.errors as Array<{ path: string }>).map((e) => e.path).sort();
    expect(paths).toEqual(['countries', 'dataMb', 'floorPrice', 'name', 'retailPrice', 'supplierCost', 'supplierSku', 'validityDays']);
  });

  const invalid: Array<[string, Record<string, unknown>, string | RegExp]> = [
    ['an unknown country XX', { countries: ['XX'] }, /^countries/],
    ['a three-letter country', { countries: ['FRA'] }, /^countries/],
    ['Kosovo, which ISO has not assigned', { countries: ['XK'] }, /^countries/],
    ['no country at all', { countries: [] }, 'countries'],
    ['a country listed twice', { countries: ['FR', 'fr'] }, /^countries/],
    ['a negative floor price', { floorPrice: -1 }, 'floorPrice'],
    ['a zero retail price', { retailPrice: 0 }, 'retailPrice'],
    ['a fractional supplier cost', { supplierCost: 10.5 }, 'supplierCost'],
    ['a price as a string', { floorPrice: '1449' }, 'floorPrice'],
    ['an empty name', { name: '   ' }, 'name'],
    ['a 201-character name', { name: 'n'.repeat(201) }, 'name'],
    ['an empty SKU', { supplierSku: '' }, 'supplierSku'],
    ['a SKU with a space', { supplierSku: 'E2E ADMIN X' }, 'supplierSku'],
    ['zero data', { dataMb: 0 }, 'dataMb'],
    ['negative validity', { validityDays: -30 }, 'validityDays'],
    ['an unknown field', { margin: 40 }, 'margin'],
    ['active as a string', { active: 'yes' }, 'active'],
  ];
  for (const [label, change, path] of invalid) {
    it(`when the plan has ${label}, then 400 VALIDATION_ERROR naming ${path}`, async () => {
      expectValidationError(await create(planBody(change)), path);
    });
  }

  it('when the SKU is already used by a seed plan or a created plan, then 400 naming supplierSku', async () => {
    expectValidationError(await create(planBody({ supplierSku: 'SKU-FR-5GB-30D' })), 'supplierSku');
    const first = await create(planBody());
    expect(first.status).toBe(201);
    expectValidationError(await create(planBody({ supplierSku: first.body.supplierSku })), 'supplierSku');
  });

  it('when the body is not JSON, then 400 MALFORMED_JSON', async () => {
    const answer = await admin('/plans', { method: 'POST', rawBody: '{"name":', headers: { 'content-type': 'application/json' } });
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('MALFORMED_JSON');
  });

  it('when no admin token is sent, then 401 and no plan is created', async () => {
    const body = planBody();
    const answer = await admin('/plans', { body, headers: { authorization: '' } });
    expect(answer.status).toBe(401);
    expect(answer.body.code).toBe('UNAUTHENTICATED');
    const listed = await admin('/plans?country=DE&limit=100');
    expect(listed.body.data.map((p: { supplierSku: string }) => p.supplierSku)).not.toContain(body.supplierSku);
  });
});

describe('updating a plan', () => {
  it('when the operator changes the price and name, then 200 with the new values, a later updatedAt and new partner prices', async () => {
    const made = await create(planBody());
    const patched = await admin(`/plans/${made.body.id}`, { method: 'PATCH', body: { floorPrice: 2005, name: '  E2E Germany renamed  ' } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toEqual({ ...made.body, floorPrice: 2005, name: 'E2E Germany renamed', updatedAt: expect.stringMatching(timestamp) });
    expect(Date.parse(patched.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(made.body.updatedAt));
    expect((await admin(`/plans/${made.body.id}`)).body).toEqual(patched.body);
    const listed = await api('/partner/catalog?country=DE&limit=100', withKey(partner.apiKey));
    // Premium: (2005 × 110 + 50) div 100 = 2206 (2205.5 rounded half-up).
    expect(listed.body.data.find((p: { id: string }) => p.id === made.body.id)?.wholesalePrice).toBe(2206);

    const entry = await until(async () => {
      const log = await admin('/audit?limit=100');
      return (log.body.data as Array<{ action: string; target: string }>).find((e) => e.action === 'plan.updated' && e.target === made.body.id);
    }, 'the plan.updated audit entry');
    expect(entry).toMatchObject({ details: { floorPrice: 2005, name: 'E2E Germany renamed' } });
  });

  it('when the countries are patched in lower case and the region cleared, then they are stored upper-case and the plan is local', async () => {
    const made = await create(planBody({ countries: ['DE', 'AT'], region: 'E2E Duo' }));
    const patched = await admin(`/plans/${made.body.id}`, { method: 'PATCH', body: { countries: ['pl', 'cz'], region: null } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({ countries: ['PL', 'CZ'], region: null });
  });

  it('when an empty patch is sent, then 200 and nothing changes', async () => {
    const made = await create(planBody());
    const patched = await admin(`/plans/${made.body.id}`, { method: 'PATCH', body: {} });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual(made.body);
  });

  const invalid: Array<[string, Record<string, unknown>, string | RegExp]> = [
    ['countries XX', { countries: ['XX'] }, /^countries/],
    ['an empty country list', { countries: [] }, 'countries'],
    ['a negative supplier cost', { supplierCost: -5 }, 'supplierCost'],
    ['an unknown field', { sku: 'X' }, 'sku'],
    ['an id', { id: 'plan_01jzzzzzzzzzzzzzzzzzzzzzzz' }, 'id'],
    ['a null name', { name: null }, 'name'],
  ];
  for (const [label, change, path] of invalid) {
    it(`when the patch has ${label}, then 400 naming ${path} and the plan is unchanged`, async () => {
      const made = await create(planBody());
      expectValidationError(await admin(`/plans/${made.body.id}`, { method: 'PATCH', body: change }), path);
      expect((await admin(`/plans/${made.body.id}`)).body).toEqual(made.body);
    });
  }

  it('when the patch takes another plan SKU, then 400 naming supplierSku', async () => {
    const made = await create(planBody());
    expectValidationError(await admin(`/plans/${made.body.id}`, { method: 'PATCH', body: { supplierSku: 'SKU-DE-1GB-7D' } }), 'supplierSku');
  });

  it('when the plan is patched with its own SKU, then 200', async () => {
    const made = await create(planBody());
    const patched = await admin(`/plans/${made.body.id}`, { method: 'PATCH', body: { supplierSku: made.body.supplierSku, dataMb: 8192 } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.dataMb).toBe(8192);
  });
});

describe('unknown plans', () => {
  for (const id of unknownIds) {
    it(`when plan id "${id}" is read or patched, then 404 PLAN_NOT_FOUND`, async () => {
      for (const answer of [await admin(`/plans/${id}`), await admin(`/plans/${id}`, { method: 'PATCH', body: { active: false } })]) {
        expect(answer.status, answer.text).toBe(404);
        expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(answer.body.code).toBe('PLAN_NOT_FOUND');
      }
    });
  }
});

describe('the admin list', () => {
  const bad: Array<[string, string]> = [
    ['page', '0'],
    ['page', 'abc'],
    ['page', '-1'],
    ['limit', '0'],
    ['limit', '101'],
    ['limit', '1.5'],
    ['active', 'yes'],
    ['country', 'XX'],
  ];
  for (const [field, value] of bad) {
    it(`when ${field} is "${value}", then 400 naming ${field}`, async () => {
      expectValidationError(await admin(`/plans?${field}=${value}`), field);
    });
  }

  it('when the page is past the end, however far, then 200 with empty data and the true pagination', async () => {
    const { total } = (await admin('/plans?limit=100')).body.pagination;
    for (const page of [Math.ceil(total / 100) + 1, 5_000_000]) {
      const answer = await admin(`/plans?limit=100&page=${page}`);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body).toEqual({ data: [], pagination: { page, limit: 100, total, totalPages: Math.ceil(total / 100) } });
    }
  });

  it('when no limit is sent, then 20 plans come back newest first', async () => {
    const made = await create(planBody());
    const answer = await admin('/plans');
    expect(answer.status).toBe(200);
    expect(answer.body.data).toHaveLength(20);
    expect(answer.body.pagination).toMatchObject({ page: 1, limit: 20 });
    expect(answer.body.data[0].id).toBe(made.body.id);
    const times = (answer.body.data as Array<{ createdAt: string }>).map((p) => Date.parse(p.createdAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });
});

describe('the development seed', () => {
  const seedSku = /^SKU-[A-Z]+-\d+GB-\d+D$/;

  async function allPlans(): Promise<{ total: number; plans: Array<{ id: string; supplierSku: string; countries: string[]; region: string | null }> }> {
    const plans = [];
    let total = 0;
    for (let page = 1; ; page++) {
      const answer = await admin(`/plans?limit=100&page=${page}`);
      expect(answer.status, answer.text).toBe(200);
      plans.push(...answer.body.data);
      total = answer.body.pagination.total;
      if (page >= answer.body.pagination.totalPages) break;
    }
    return { total, plans };
  }

  it('when the platform has started, then at least 100 seed plans cover at least 40 countries, with regional plans', async () => {
    const seed = (await allPlans()).plans.filter((p) => seedSku.test(p.supplierSku));
    expect(seed.length).toBeGreaterThanOrEqual(100);
    const local = new Set(seed.filter((p) => p.region === null).flatMap((p) => p.countries));
    expect(local.size).toBeGreaterThanOrEqual(40);
    const regions = new Set(seed.filter((p) => p.region !== null).map((p) => p.region));
    expect([...regions]).toEqual(expect.arrayContaining(['Europe', 'Asia', 'Global']));
    expect(new Set(seed.flatMap((p) => p.countries)).size).toBeGreaterThanOrEqual(100);
  });

  it('when the catalog service restarts and loads the seed again, then no plan is duplicated and the catalog answers again', async () => {
    const before = await allPlans();
    expect(before.plans).toHaveLength(before.total);

    expect((await control('/services/catalog/kill?signal=SIGTERM', 'POST')).status).toBe(200);
    // While it is down the gateway says so with a retryable 503, never a 500.
    const down = await api('/partner/catalog?limit=1', withKey(partner.apiKey));
    expect(down.status, down.text).toBe(503);
    expect(down.body.code).toBe('UNAVAILABLE');
    const started = await control('/services/catalog/start', 'POST');
    expect(started.status, started.text).toBe(200);

    const after = await until(async () => {
      const probe = await admin('/plans?limit=1');
      return probe.status === 200 ? allPlans() : undefined;
    }, 'the catalog to answer after its restart');
    expect(after.total).toBe(before.total);
    expect(after.plans.map((p) => p.id).sort()).toEqual(before.plans.map((p) => p.id).sort());
    const skus = after.plans.map((p) => p.supplierSku);
    expect(new Set(skus).size).toBe(skus.length);

    const partnerView = await until(async () => {
      const answer = await api('/partner/catalog?limit=1', withKey(partner.apiKey));
      return answer.status === 200 ? answer : undefined;
    }, 'the partner catalog after the restart');
    expect(partnerView.body.pagination.total).toBe(after.plans.filter((p) => (p as { active?: boolean }).active).length);
  });
});
