// Protects the partner catalog of §5 through the gateway: tier prices, country filters, paging, no leak of internal fields, scopes and instant deactivation.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  admin,
  api,
  apiKeyPattern,
  call,
  control,
  onboardPartner,
  platform,
  waitForMail,
  withKey,
  type Answer,
  type Onboarded,
} from './support/client.js';

type Tier = 'standard' | 'premium' | 'enterprise';

interface PartnerPlan {
  id: string;
  name: string;
  countries: string[];
  region: string | null;
  dataMb: number;
  validityDays: number;
  wholesalePrice: number;
  currency: string;
}

interface AdminPlan {
  id: string;
  name: string;
  countries: string[];
  region: string | null;
  floorPrice: number;
  supplierSku: string;
  active: boolean;
}

/** The contract's formula, in BigInt so the test does not share the service's arithmetic. */
const expectedPrice: Record<Tier, (floor: number) => number> = {
  standard: (floor) => floor,
  premium: (floor) => Number((BigInt(floor) * 110n + 50n) / 100n),
  enterprise: (floor) => Number((BigInt(floor) * 120n + 50n) / 100n),
};

const planViewKeys = [
  'id',
  'name',
  'countries',
  'region',
  'dataMb',
  'validityDays',
  'wholesalePrice',
  'currency',
  // What a traveller gets (§5), and the keys of each network.
  'unlimited',
  'fairUseMb',
  'throttleKbps',
  'networks',
  'voice',
  'sms',
  'kycRequired',
  'topUpable',
  'activationPolicy',
  'country',
  'operator',
  'generations',
];
const envelopeKeys = ['data', 'pagination', 'page', 'limit', 'total', 'totalPages'];
const internalWords = /retail|floor|supplier|sku|cost|margin/i;

// The e2e platform allows 100 requests per 10 s per key; each key is kept at 90 per 10.5 s here, so a 429 is never this file's doing.
const keyUse = new Map<string, number[]>();
async function spend(key: string): Promise<void> {
  for (;;) {
    const now = Date.now();
    const recent = (keyUse.get(key) ?? []).filter((at) => now - at < 10_500);
    if (recent.length < 90) {
      keyUse.set(key, [...recent, now]);
      return;
    }
    await new Promise((r) => setTimeout(r, recent[0]! + 10_500 - now));
  }
}

/** One catalog call with `key`, on the main gateway or another replica's public URL. */
async function catalog(key: string, query = '', baseUrl = platform.publicUrl): Promise<Answer> {
  await spend(key);
  return call(baseUrl, `/api/v1/partner/catalog${query}`, withKey(key));
}

/** Every page of a catalog listing at limit 100, asserting each page answers 200. */
async function catalogPages(key: string, filter = '', baseUrl = platform.publicUrl): Promise<Answer[]> {
  const pages: Answer[] = [];
  for (let page = 1; ; page++) {
    const answer = await catalog(key, `?limit=100&page=${page}${filter}`, baseUrl);
    expect(answer.status, answer.text).toBe(200);
    pages.push(answer);
    if (page >= answer.body.pagination.totalPages) return pages;
  }
}

async function wholeCatalog(key: string, filter = '', baseUrl = platform.publicUrl): Promise<PartnerPlan[]> {
  return (await catalogPages(key, filter, baseUrl)).flatMap((page) => page.body.data as PartnerPlan[]);
}

/** Every plan with its internal fields, through the admin API (paged, limit 100). */
async function adminPlans(): Promise<AdminPlan[]> {
  const plans: AdminPlan[] = [];
  for (let page = 1; ; page++) {
    const answer = await admin(`/plans?limit=100&page=${page}`);
    expect(answer.status, answer.text).toBe(200);
    plans.push(...(answer.body.data as AdminPlan[]));
    if (page >= answer.body.pagination.totalPages) return plans;
  }
}

/** Contract order: fewer countries (local) first, then cheaper first. */
function expectContractOrder(plans: PartnerPlan[]): void {
  for (let i = 1; i < plans.length; i++) {
    const [before, after] = [plans[i - 1]!, plans[i]!];
    const ordered =
      before.countries.length < after.countries.length ||
      (before.countries.length === after.countries.length && before.wholesalePrice <= after.wholesalePrice);
    expect(ordered, `${before.name} (${before.countries.length} countries, ${before.wholesalePrice}) is listed before ${after.name} (${after.countries.length}, ${after.wholesalePrice})`).toBe(true);
  }
}

function expectProblem(answer: Answer, status: number, code: string): void {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(answer.body.code).toBe(code);
}

const tiers: Tier[] = ['standard', 'premium', 'enterprise'];
const byTier = {} as Record<Tier, Onboarded>;
/** Extra standard partners whose keys share the load of the many-call tests. */
let pool: string[] = [];
function poolKey(): string {
  const recent = (key: string) => (keyUse.get(key) ?? []).filter((at) => Date.now() - at < 10_500).length;
  return pool.reduce((best, key) => (recent(key) < recent(best) ? key : best));
}

/** Plans this file created; all are left inactive at the end, so other files see the catalog as seeded. */
const created: string[] = [];
async function createPlan(overrides: Record<string, unknown> = {}): Promise<AdminPlan> {
  const tag = randomBytes(4).toString('hex').toUpperCase();
  const answer = await admin('/plans', {
    body: {
      name: `E2E France 2 GB / 10 days ${tag}`,
      countries: ['FR'],
      dataMb: 2048,
      validityDays: 10,
      floorPrice: 1005,
      retailPrice: 1999,
      supplierSku: `E2E-CATALOG-${tag}`,
      supplierCost: 700,
      ...overrides,
    },
  });
  expect(answer.status, answer.text).toBe(201);
  created.push(answer.body.id);
  return answer.body as AdminPlan;
}

beforeAll(async () => {
  const onboarded = await Promise.all([...tiers.map((tier) => onboardPartner(tier)), onboardPartner(), onboardPartner(), onboardPartner()]);
  tiers.forEach((tier, i) => (byTier[tier] = onboarded[i]!));
  pool = onboarded.slice(3).map((p) => p.apiKey);
});

afterAll(async () => {
  for (const id of created) await admin(`/plans/${id}`, { method: 'PATCH', body: { active: false } });
});

describe('prices per tier', () => {
  it('when each tier lists the whole catalog, then every active plan is there once at the formula price of its floor', async () => {
    const plans = await adminPlans();
    const floors = new Map(plans.map((p) => [p.id, p.floorPrice]));
    const activeIds = plans.filter((p) => p.active).map((p) => p.id).sort();
    expect(activeIds.length).toBeGreaterThanOrEqual(100);

    const seen: Record<Tier, Map<string, number>> = { standard: new Map(), premium: new Map(), enterprise: new Map() };
    for (const tier of tiers) {
      const listed = await wholeCatalog(byTier[tier].apiKey);
      expect(listed.map((p) => p.id).sort(), `${tier} lists exactly the active plans, each once`).toEqual(activeIds);
      for (const plan of listed) {
        expect(plan.wholesalePrice, `${tier} price of ${plan.name} (floor ${floors.get(plan.id)})`).toBe(expectedPrice[tier](floors.get(plan.id)!));
        expect(plan.currency).toBe('USD');
        seen[tier].set(plan.id, plan.wholesalePrice);
      }
    }
    // The tiers really differ: premium and enterprise pay more than standard for every plan.
    for (const id of activeIds) {
      expect(seen.premium.get(id)!).toBeGreaterThan(seen.standard.get(id)!);
      expect(seen.enterprise.get(id)!).toBeGreaterThan(seen.premium.get(id)!);
    }
  });

  it('when a floor ends in 5, then premium rounds the half cent up and each tier sees its own price of the new plan', async () => {
    const plan = await createPlan({ floorPrice: 1005 });
    try {
      const prices: Partial<Record<Tier, number>> = {};
      for (const tier of tiers) {
        const listed = (await catalog(byTier[tier].apiKey, '?country=FR&limit=100')).body.data as PartnerPlan[];
        prices[tier] = listed.find((p) => p.id === plan.id)?.wholesalePrice;
      }
      // 1005 × 1.10 = 1105.5 → 1106; 1005 × 1.20 = 1206.
      expect(prices).toEqual({ standard: 1005, premium: 1106, enterprise: 1206 });
    } finally {
      await admin(`/plans/${plan.id}`, { method: 'PATCH', body: { active: false } });
    }
  });
});

describe('country filter and order', () => {
  it('when the country is sent in upper, lower or mixed case, then the answer is the same list', async () => {
    const key = poolKey();
    const [upper, lower, mixed] = [await catalog(key, '?country=FR&limit=100'), await catalog(key, '?country=fr&limit=100'), await catalog(key, '?country=fR&limit=100')];
    expect(upper.status).toBe(200);
    expect(upper.body.data.length).toBeGreaterThan(0);
    expect(lower.body).toEqual(upper.body);
    expect(mixed.body).toEqual(upper.body);
    for (const plan of upper.body.data as PartnerPlan[]) expect(plan.countries).toContain('FR');
  });

  it('when any country covered by a regional plan is asked for, then the list is exactly the active plans covering it, local first then by price', async () => {
    const active = (await adminPlans()).filter((p) => p.active);
    const regional = active.filter((p) => p.region !== null);
    expect(regional.map((p) => p.region)).toEqual(expect.arrayContaining(['Europe', 'Asia', 'Global']));
    const countries = [...new Set(regional.flatMap((p) => p.countries))].sort();
    expect(countries.length).toBeGreaterThanOrEqual(40);

    for (const [i, country] of countries.entries()) {
      // Every other country is asked for in lower case.
      const answer = await catalog(poolKey(), `?limit=100&country=${i % 2 ? country.toLowerCase() : country}`);
      expect(answer.status, answer.text).toBe(200);
      const listed = answer.body.data as PartnerPlan[];
      const expected = active.filter((p) => p.countries.includes(country)).map((p) => p.id).sort();
      expect(listed.map((p) => p.id).sort(), `plans under ${country}`).toEqual(expected);
      expect(answer.body.pagination.total).toBe(expected.length);
      expectContractOrder(listed);
    }
  });

  it('when France is listed, then its local plans come first, cheapest first, then Europe and the wider regions', async () => {
    const listed = await wholeCatalog(poolKey(), '&country=FR');
    const firstRegional = listed.findIndex((p) => p.countries.length > 1);
    expect(firstRegional).toBeGreaterThan(0);
    expect(listed.slice(0, firstRegional).every((p) => p.countries.length === 1 && p.region === null)).toBe(true);
    expect(listed.slice(firstRegional).every((p) => p.countries.length > 1)).toBe(true);
    expect(listed.map((p) => p.region)).toEqual(expect.arrayContaining(['Europe', 'Global']));
    expectContractOrder(listed);
  });

  it('when the whole catalog is listed, then it is in contract order across every page', async () => {
    expectContractOrder(await wholeCatalog(poolKey()));
  });

  it('when a valid country has no plans, then 200 with empty data and total 0', async () => {
    const answer = await catalog(poolKey(), '?country=AQ');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ data: [], pagination: { page: 1, limit: 50, total: 0, totalPages: 0 } });
  });

  for (const country of ['XX', 'UK', 'XK', 'FRA', '1', 'F', 'f1', '']) {
    it(`when the country is "${country}", then 400 VALIDATION_ERROR naming country`, async () => {
      const answer = await catalog(poolKey(), `?country=${encodeURIComponent(country)}`);
      expectProblem(answer, 400, 'VALIDATION_ERROR');
      expect(answer.body.errors[0].path).toBe('country');
    });
  }
});

describe('paging', () => {
  it('when no limit is sent, then the catalog answers 50 plans with pagination for limit 50', async () => {
    const answer = await catalog(poolKey());
    expect(answer.status).toBe(200);
    const { total } = answer.body.pagination;
    expect(total).toBeGreaterThan(50);
    expect(answer.body.data).toHaveLength(50);
    expect(answer.body.pagination).toEqual({ page: 1, limit: 50, total, totalPages: Math.ceil(total / 50) });
  });

  it('when limit is 100, then up to 100 plans are answered', async () => {
    const answer = await catalog(poolKey(), '?limit=100');
    expect(answer.status).toBe(200);
    expect(answer.body.data).toHaveLength(Math.min(100, answer.body.pagination.total));
    expect(answer.body.pagination).toMatchObject({ page: 1, limit: 100 });
  });

  it('when the pages are read one after another, then together they hold every plan once', async () => {
    const pages = await catalogPages(poolKey());
    const all = pages[0]!.body.pagination.total as number;
    const small: PartnerPlan[] = [];
    for (let page = 1; page <= Math.ceil(all / 30); page++) {
      const answer = await catalog(poolKey(), `?limit=30&page=${page}`);
      expect(answer.body.pagination).toEqual({ page, limit: 30, total: all, totalPages: Math.ceil(all / 30) });
      small.push(...answer.body.data);
    }
    expect(small.map((p) => p.id)).toEqual(pages.flatMap((p) => p.body.data as PartnerPlan[]).map((p) => p.id));
    expect(new Set(small.map((p) => p.id)).size).toBe(all);
  });

  it('when the page is past the end, then 200 with empty data and the true pagination', async () => {
    const key = poolKey();
    const total = (await catalog(key, '?limit=100')).body.pagination.total as number;
    const totalPages = Math.ceil(total / 100);
    for (const page of [totalPages + 1, 101]) {
      const answer = await catalog(key, `?limit=100&page=${page}`);
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ data: [], pagination: { page, limit: 100, total, totalPages } });
    }
    // A page far past the end is still a page past the end.
    for (const page of [1_000_001, 999_999_999]) {
      const far = await catalog(key, `?limit=100&page=${page}`);
      expect(far.status, far.text).toBe(200);
      expect(far.body).toEqual({ data: [], pagination: { page, limit: 100, total, totalPages } });
    }
    const filtered = await catalog(key, '?country=FR&limit=10&page=50');
    expect(filtered.status).toBe(200);
    expect(filtered.body.data).toEqual([]);
    expect(filtered.body.pagination).toMatchObject({ page: 50, limit: 10, totalPages: Math.ceil(filtered.body.pagination.total / 10) });
  });

  const bad: Array<['page' | 'limit', string]> = [
    ['page', '0'],
    ['page', 'abc'],
    ['page', '1.5'],
    ['page', '-1'],
    ['page', ''],
    ['limit', '0'],
    ['limit', '101'],
    ['limit', 'abc'],
    ['limit', '1.5'],
    ['limit', '-1'],
    ['limit', '1e2'],
  ];
  for (const [field, value] of bad) {
    it(`when ${field} is "${value}", then 400 VALIDATION_ERROR naming ${field}`, async () => {
      const answer = await catalog(poolKey(), `?${field}=${encodeURIComponent(value)}`);
      expectProblem(answer, 400, 'VALIDATION_ERROR');
      expect(answer.body.errors[0].path).toBe(field);
    });
  }

  it('when a parameter is repeated, then 400 naming it', async () => {
    for (const [query, field] of [['?country=FR&country=DE', 'country'], ['?limit=10&limit=20', 'limit'], ['?page=1&page=2', 'page']]) {
      const answer = await catalog(poolKey(), query);
      expectProblem(answer, 400, 'VALIDATION_ERROR');
      expect(answer.body.errors[0].path).toBe(field);
    }
  });

  it('when an unknown query parameter is sent, then 400 naming it', async () => {
    const answer = await catalog(poolKey(), '?tier=enterprise');
    expectProblem(answer, 400, 'VALIDATION_ERROR');
    expect(answer.body.errors[0].path).toBe('tier');
  });
});

describe('no internal field leaks', () => {
  /** Every key of every object in `value`, at any depth; every string value. */
  function walk(value: unknown, keys: Set<string>, strings: Set<string>): void {
    if (typeof value === 'string') strings.add(value);
    else if (Array.isArray(value)) for (const item of value) walk(item, keys, strings);
    else if (value && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) {
        keys.add(key);
        walk(inner, keys, strings);
      }
    }
  }

  it('when every page of every tier is read, then the keys are exactly the plan view and the envelope, and nothing names an internal field', async () => {
    const internal = await adminPlans();
    // An operator may name a plan or region with such a word (say "Costa Rica"); that is its public name, not a leak.
    const publicNames = new Set(internal.flatMap((p) => [p.name, p.region ?? '']));
    const skus = new Set(internal.map((p) => p.supplierSku));
    const keys = new Set<string>();
    const strings = new Set<string>();
    let plans = 0;
    for (const tier of tiers) {
      for (const page of await catalogPages(byTier[tier].apiKey)) {
        walk(page.body, keys, strings);
        plans += page.body.data.length;
        for (const header of Object.keys(page.headers)) expect(header).not.toMatch(internalWords);
      }
      for (const page of await catalogPages(byTier[tier].apiKey, '&country=FR')) walk(page.body, keys, strings);
    }
    expect(plans).toBeGreaterThanOrEqual(300);
    expect([...keys].sort()).toEqual([...planViewKeys, ...envelopeKeys].sort());
    for (const key of keys) expect(key).not.toMatch(internalWords);
    for (const value of strings) {
      expect(skus.has(value), `the supplier SKU ${value} is exposed`).toBe(false);
      if (!publicNames.has(value)) expect(value).not.toMatch(internalWords);
    }
  });

  it('when the public OpenAPI document is read, then it names no internal price or supplier field, while the admin one does', async () => {
    const published = await call(platform.publicUrl, '/openapi.json');
    expect(published.status).toBe(200);
    expect(published.body.paths).toHaveProperty(['/api/v1/partner/catalog']);
    for (const field of ['floorPrice', 'retailPrice', 'supplierSku', 'supplierCost']) expect(published.text).not.toContain(field);
    expect(published.text).toContain('wholesalePrice');
    // The same probe finds the fields where they belong, so the check above can see them.
    const operators = await call(platform.adminUrl, '/openapi.json');
    for (const field of ['floorPrice', 'retailPrice', 'supplierSku', 'supplierCost']) expect(operators.text).toContain(field);
  });
});

describe('scopes and credentials', () => {
  it('when a key issued without catalog:read is used, then 403 INSUFFICIENT_SCOPE naming catalog:read, while a catalog:read-only key works', async () => {
    const partner = await onboardPartner();
    const issuedKey = async (scopes: string[], count: number) => {
      const issued = await admin(`/partners/${partner.id}/keys`, { body: { scopes } });
      expect(issued.status, issued.text).toBe(201);
      const mails = await waitForMail(partner.email, 'A new API key was issued', { count });
      const keys = mails.map((m) => apiKeyPattern.exec(m.text)?.[1]).filter((k): k is string => k !== undefined);
      return keys.find((k) => k.split('_')[2] === issued.body.prefix)!;
    };
    const ordersOnly = await issuedKey(['orders:read'], 1);
    const denied = await catalog(ordersOnly);
    expectProblem(denied, 403, 'INSUFFICIENT_SCOPE');
    expect(denied.body.detail).toContain('catalog:read');

    const catalogOnly = await issuedKey(['catalog:read'], 2);
    expect((await catalog(catalogOnly, '?limit=1')).status).toBe(200);
  });

  it('when no key is sent, then 401 UNAUTHENTICATED; when the key is wrong, then 401 INVALID_API_KEY', async () => {
    expectProblem(await api('/partner/catalog'), 401, 'UNAUTHENTICATED');
    const key = byTier.standard.apiKey;
    const wrongSecret = `${key.slice(0, -4)}${key.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
    expectProblem(await api('/partner/catalog', withKey(wrongSecret)), 401, 'INVALID_API_KEY');
    expectProblem(await api('/partner/catalog', withKey('sk_live_nope')), 401, 'INVALID_API_KEY');
  });

  it('when the key is sent as X-Api-Key, then the catalog answers at the key tier', async () => {
    await spend(byTier.enterprise.apiKey);
    const answer = await api('/partner/catalog?country=FR&limit=100', { headers: { 'x-api-key': byTier.enterprise.apiKey } });
    expect(answer.status).toBe(200);
    const viaBearer = await catalog(byTier.enterprise.apiKey, '?country=FR&limit=100');
    expect(answer.body).toEqual(viaBearer.body);
  });
});

describe('deactivation', () => {
  it('when the operator deactivates a plan, then the very next call on every gateway replica no longer lists it, and reactivation brings it back', async () => {
    const local = await createPlan({ name: `E2E France 3 GB / 5 days ${randomBytes(2).toString('hex')}` });
    const regional = await createPlan({
      name: `E2E Western Europe 4 GB / 20 days ${randomBytes(2).toString('hex')}`,
      countries: ['FR', 'BE', 'LU'],
      region: 'E2E Western Europe',
      supplierSku: `E2E-CATALOG-WEU-${randomBytes(4).toString('hex').toUpperCase()}`,
    });
    const replica = await control<{ publicUrl: string; adminUrl: string }>('/replicas/gateway', 'POST');
    expect(replica.status, replica.text).toBe(200);
    const gateways = [platform.publicUrl, replica.body.publicUrl];

    const listedUnder = async (country: string, baseUrl: string) =>
      ((await catalog(poolKey(), `?country=${country}&limit=100`, baseUrl)).body.data as PartnerPlan[]).map((p) => p.id);
    const expectListed = async (plan: AdminPlan, listed: boolean) => {
      for (const baseUrl of gateways) {
        for (const country of plan.countries) {
          const ids = await listedUnder(country, baseUrl);
          if (listed) expect(ids, `${plan.name} under ${country} on ${baseUrl}`).toContain(plan.id);
          else expect(ids, `${plan.name} under ${country} on ${baseUrl}`).not.toContain(plan.id);
        }
      }
    };

    await expectListed(local, true);
    await expectListed(regional, true);

    for (const plan of [local, regional]) {
      const off = await admin(`/plans/${plan.id}`, { method: 'PATCH', body: { active: false } });
      expect(off.status, off.text).toBe(200);
      expect(off.body.active).toBe(false);
      // No sleep: the next call must already not see it.
      await expectListed(plan, false);
      const back = await admin(`/plans/${plan.id}`, { method: 'PATCH', body: { active: true } });
      expect(back.body.active).toBe(true);
      await expectListed(plan, true);
      expect((await admin(`/plans/${plan.id}`, { method: 'PATCH', body: { active: false } })).status).toBe(200);
      await expectListed(plan, false);
      const stored = await admin(`/plans/${plan.id}`);
      expect(stored.status).toBe(200);
      expect(stored.body.active).toBe(false);
    }

    const everything = await wholeCatalog(poolKey(), '', replica.body.publicUrl);
    expect(everything.map((p) => p.id)).not.toContain(local.id);
    expect(everything.map((p) => p.id)).not.toContain(regional.id);
  });

  it('when a plan is inactive, then the admin list still has it under active=false and not under active=true', async () => {
    const plan = await createPlan({ active: false });
    expect(plan.active).toBe(false);
    const inactive = await admin('/plans?active=false&country=FR&limit=100');
    expect(inactive.body.data.map((p: AdminPlan) => p.id)).toContain(plan.id);
    const active = await admin('/plans?active=true&country=fr&limit=100');
    expect(active.body.data.map((p: AdminPlan) => p.id)).not.toContain(plan.id);
    expect((await wholeCatalog(poolKey(), '&country=FR')).map((p) => p.id)).not.toContain(plan.id);
  });
});
