// Protects the orders service's plan-price cache: a repeated price costs no catalog call, a plan change is charged (or refused) from the next order on, an order carrying a newer catalog version is never charged an older cached price, and 0 turns the cache off.
import { AppError } from '@esim/errors';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cachedCatalog, PriceCache, settleMs } from '../src/clients/cachedCatalog.js';
import type { Catalog, PlanPrice } from '../src/clients/catalog.js';
import { createTestEnv, orderRequest, type OrdersClient, type TestEnv } from './support/testEnv.js';
import { createTestInfra, until, type TestInfra } from '@esim/testing';
import { addService, devTlsFiles, startGrpcServer, type ServiceHandlers } from '@esim/grpc';
import { catalogV1 } from '@esim/proto';

const logger = pino({ level: 'silent' });

/** A catalog that counts its calls and answers from a table the test edits; a missing plan is PLAN_NOT_AVAILABLE. */
function countingCatalog() {
  const prices = new Map<string, number>();
  const calls: string[] = [];
  const catalog: Catalog = {
    async getPlanPrice({ planId, tier }) {
      calls.push(`${planId}/${tier}`);
      const price = prices.get(planId);
      if (price === undefined) throw new AppError('PLAN_NOT_AVAILABLE', `Plan ${planId} is unknown or no longer sold.`);
      return priceOf(price);
    },
    close: () => {},
  };
  return { catalog, prices, calls };
}

function priceOf(price: number): PlanPrice {
  return { planName: 'France 5 GB / 30 days', price, currency: 'USD', supplierSku: 'FR-5', profileType: null, countries: ['FR'], region: null, dataMb: 5_120, validityDays: 30 };
}

describe('PriceCache', () => {
  it('when the same plan and tier are asked again, then the catalog is not called; another tier or plan is', async () => {
    const { catalog, prices, calls } = countingCatalog();
    prices.set('plan_a', 700).set('plan_b', 900);
    const cache = new PriceCache(catalog, 30_000);

    expect((await cache.getPlanPrice({ planId: 'plan_a', tier: 'standard' })).price).toBe(700);
    expect((await cache.getPlanPrice({ planId: 'plan_a', tier: 'standard' })).price).toBe(700);
    await cache.getPlanPrice({ planId: 'plan_a', tier: 'premium' });
    await cache.getPlanPrice({ planId: 'plan_b', tier: 'standard' });
    expect(calls).toEqual(['plan_a/standard', 'plan_a/premium', 'plan_b/standard']);
  });

  it('when concurrent orders ask for a missing price, then they share one catalog call', async () => {
    const { catalog, prices, calls } = countingCatalog();
    prices.set('plan_a', 700);
    const cache = new PriceCache(catalog, 30_000);
    const answers = await Promise.all([1, 2, 3].map(() => cache.getPlanPrice({ planId: 'plan_a', tier: 'standard' })));
    expect(answers.map((answer) => answer.price)).toEqual([700, 700, 700]);
    expect(calls).toEqual(['plan_a/standard']);
  });

  it('when the plan is not available, then the refusal is not kept and the plan sells as soon as the catalog has it', async () => {
    const { catalog, prices, calls } = countingCatalog();
    const cache = new PriceCache(catalog, 30_000);
    await expect(cache.getPlanPrice({ planId: 'plan_a', tier: 'standard' })).rejects.toMatchObject({ code: 'PLAN_NOT_AVAILABLE' });
    prices.set('plan_a', 700);
    expect((await cache.getPlanPrice({ planId: 'plan_a', tier: 'standard' })).price).toBe(700);
    expect(calls).toEqual(['plan_a/standard', 'plan_a/standard']);
  });

  it('when the plan changes, then its next price is asked again (each tier), other plans stay, and a price fetched while the catalog reloads is not kept past the settling', async () => {
    let now = 0;
    const { catalog, prices, calls } = countingCatalog();
    prices.set('plan_a', 700).set('plan_b', 900);
    const cache = new PriceCache(catalog, 30_000, () => now);
    for (const request of [
      { planId: 'plan_a', tier: 'standard' },
      { planId: 'plan_a', tier: 'premium' },
      { planId: 'plan_b', tier: 'standard' },
    ]) {
      await cache.getPlanPrice(request);
    }

    prices.set('plan_a', 750);
    cache.planChanged('plan_a');
    expect((await cache.getPlanPrice({ planId: 'plan_a', tier: 'standard' })).price).toBe(750);
    await cache.getPlanPrice({ planId: 'plan_a', tier: 'premium' });
    await cache.getPlanPrice({ planId: 'plan_b', tier: 'standard' });
    expect(calls.slice(3)).toEqual(['plan_a/standard', 'plan_a/premium']);

    // Within the settling the price is kept; once it ends it is asked again (a lagging catalog replica's answer is not kept for the TTL).
    now = settleMs - 1;
    await cache.getPlanPrice({ planId: 'plan_a', tier: 'standard' });
    expect(calls.slice(5)).toEqual([]);
    now = settleMs;
    await cache.getPlanPrice({ planId: 'plan_a', tier: 'standard' });
    expect(calls.slice(5)).toEqual(['plan_a/standard']);
  });

  it('when a change arrives while a price is being fetched, then that answer is not kept', async () => {
    const { prices, calls } = countingCatalog();
    prices.set('plan_a', 700);
    let release: () => void = () => {};
    const slow: Catalog = {
      async getPlanPrice(request) {
        calls.push(`${request.planId}/${request.tier}`);
        await new Promise<void>((resolve) => (release = resolve));
        return priceOf(prices.get(request.planId)!);
      },
      close: () => {},
    };
    const cache = new PriceCache(slow, 30_000);
    const asking = cache.getPlanPrice({ planId: 'plan_a', tier: 'standard' });
    cache.planChanged('plan_a');
    release();
    expect((await asking).price).toBe(700);
    const again = cache.getPlanPrice({ planId: 'plan_a', tier: 'standard' });
    release();
    await again;
    expect(calls).toEqual(['plan_a/standard', 'plan_a/standard']);
  });

  it('when the TTL passes or everything is cleared, then the price is asked again', async () => {
    let now = 0;
    const { catalog, prices, calls } = countingCatalog();
    prices.set('plan_a', 700);
    const cache = new PriceCache(catalog, 30_000, () => now);
    await cache.getPlanPrice({ planId: 'plan_a', tier: 'standard' });
    now = 29_999;
    await cache.getPlanPrice({ planId: 'plan_a', tier: 'standard' });
    now = 30_000;
    await cache.getPlanPrice({ planId: 'plan_a', tier: 'standard' });
    expect(calls).toHaveLength(2);
    cache.clear();
    await cache.getPlanPrice({ planId: 'plan_a', tier: 'standard' });
    expect(calls).toHaveLength(3);
  });

  it('when an order carries a catalog version newer than the cached price, then the price is asked again and the new one charged; the same version is served cached', async () => {
    const { catalog, prices, calls } = countingCatalog();
    prices.set('plan_a', 700);
    const cache = new PriceCache(catalog, 30_000);
    expect((await cache.getPlanPrice({ planId: 'plan_a', tier: 'standard', catalogVersion: 3 })).price).toBe(700);

    // The operator's write was answered (version 4) before its event arrived: no planChanged here.
    prices.set('plan_a', 750);
    expect((await cache.getPlanPrice({ planId: 'plan_a', tier: 'standard', catalogVersion: 4 })).price).toBe(750);
    expect(calls).toEqual(['plan_a/standard', 'plan_a/standard']);

    prices.set('plan_a', 800);
    expect((await cache.getPlanPrice({ planId: 'plan_a', tier: 'standard', catalogVersion: 4 })).price).toBe(750);
    expect((await cache.getPlanPrice({ planId: 'plan_a', tier: 'standard', catalogVersion: 2 })).price).toBe(750);
    expect((await cache.getPlanPrice({ planId: 'plan_a', tier: 'standard' })).price).toBe(750);
    expect(calls).toHaveLength(2);
  });

  it('when an order with a newer version asks while an older version is being fetched, then it does not share that call', async () => {
    const { prices, calls } = countingCatalog();
    prices.set('plan_a', 700);
    const releases: (() => void)[] = [];
    const slow: Catalog = {
      async getPlanPrice(request) {
        calls.push(`${request.planId}/${request.tier}`);
        const price = prices.get(request.planId)!;
        await new Promise<void>((resolve) => releases.push(resolve));
        return priceOf(price);
      },
      close: () => {},
    };
    const cache = new PriceCache(slow, 30_000);
    const older = cache.getPlanPrice({ planId: 'plan_a', tier: 'standard', catalogVersion: 1 });
    prices.set('plan_a', 750);
    const newer = cache.getPlanPrice({ planId: 'plan_a', tier: 'standard', catalogVersion: 2 });
    const sharing = cache.getPlanPrice({ planId: 'plan_a', tier: 'standard', catalogVersion: 2 });
    expect(calls).toEqual(['plan_a/standard', 'plan_a/standard']);
    // The newer answer lands first; the older one, landing after, does not displace it.
    releases[1]!();
    expect([(await newer).price, (await sharing).price]).toEqual([750, 750]);
    releases[0]!();
    expect((await older).price).toBe(700);
    expect((await cache.getPlanPrice({ planId: 'plan_a', tier: 'standard', catalogVersion: 2 })).price).toBe(750);
    expect(calls).toHaveLength(2);
  });
});

describe('cachedCatalog on NATS', () => {
  let infra: TestInfra;
  beforeAll(async () => {
    infra = await createTestInfra('orders');
  });
  afterAll(() => infra?.cleanup());

  it("when the catalog publishes catalog.plan.changed for a plan, then that plan's next price is asked again", async () => {
    const { catalog, prices, calls } = countingCatalog();
    prices.set('plan_a', 700).set('plan_b', 900);
    const cached = cachedCatalog({ catalog, ttlMs: 30_000, nc: await infra.nats(), ns: infra.ns, logger });
    infra.defer(() => cached.stop());
    await cached.catalog.getPlanPrice({ planId: 'plan_a', tier: 'standard' });
    await cached.catalog.getPlanPrice({ planId: 'plan_b', tier: 'standard' });
    await cached.catalog.getPlanPrice({ planId: 'plan_a', tier: 'standard' });
    expect(calls).toEqual(['plan_a/standard', 'plan_b/standard']);

    prices.set('plan_a', 750);
    await infra.publish('catalog.plan.changed', { planId: 'plan_a', active: true });
    await until(async () => (await cached.catalog.getPlanPrice({ planId: 'plan_a', tier: 'standard' })).price === 750, 'the change to reach the cache');
    await cached.catalog.getPlanPrice({ planId: 'plan_b', tier: 'standard' });
    expect(calls.filter((call) => call === 'plan_b/standard')).toHaveLength(1);
  });

  it('when ORDERS_PRICE_CACHE_MS is 0, then every order asks the catalog', async () => {
    const { catalog, prices, calls } = countingCatalog();
    prices.set('plan_a', 700);
    const cached = cachedCatalog({ catalog, ttlMs: 0, nc: await infra.nats(), ns: infra.ns, logger });
    expect(cached.catalog).toBe(catalog);
    await cached.catalog.getPlanPrice({ planId: 'plan_a', tier: 'standard' });
    await cached.catalog.getPlanPrice({ planId: 'plan_a', tier: 'standard' });
    expect(calls).toEqual(['plan_a/standard', 'plan_a/standard']);
  });
});

describe('CreateOrder with the price cache and the real catalog', () => {
  let env: TestEnv;
  let client: OrdersClient;
  beforeAll(async () => {
    env = await createTestEnv();
    ({ client } = await env.start({ ORDERS_PRICE_CACHE_MS: '30000' }));
  });
  afterAll(() => env?.cleanup());

  it('when the plan is repriced, then the next orders are charged the new price; when it is deactivated, they are refused', async () => {
    const partnerId = env.partner(10_000_000);
    const plan = await env.plan('DE');
    const { floorPrice } = await env.catalog.adminGetPlan({ id: plan.id });
    const first = await client.createOrder(orderRequest(partnerId, plan.id));
    expect(first.order!.price).toBe(floorPrice);
    try {
      const repriced = floorPrice + 111n;
      await env.catalog.updatePlan({ id: plan.id, plan: { floorPrice: repriced }, audit: { operator: 'orders-test' } });
      await until(async () => (await client.createOrder(orderRequest(partnerId, plan.id))).order!.price === repriced, 'the new price to be charged');
      // Once charged, it stays: the cache holds the new price, not a lagging one.
      expect((await client.createOrder(orderRequest(partnerId, plan.id))).order!.price).toBe(repriced);

      await env.catalog.updatePlan({ id: plan.id, plan: { active: false }, audit: { operator: 'orders-test' } });
      await until(async () => {
        const refused = await client.createOrder(orderRequest(partnerId, plan.id)).then(
          () => false,
          (error: { code?: string }) => error.code === 'PLAN_NOT_AVAILABLE',
        );
        return refused;
      }, 'the deactivation to be refused');
      await expect(client.createOrder(orderRequest(partnerId, plan.id))).rejects.toMatchObject({ code: 'PLAN_NOT_AVAILABLE' });
    } finally {
      await env.catalog.updatePlan({ id: plan.id, plan: { floorPrice, active: true }, audit: { operator: 'orders-test' } });
    }
  });

  it('when an order carries a catalog version raised after a reprice the orders service has not heard of, then it is charged the new price', async () => {
    // A catalog that never announces its changes, so only the version can make the cache ask again.
    const fake = await startSilentCatalog(700);
    try {
      const { client: quiet } = await env.start({ ORDERS_PRICE_CACHE_MS: '30000', CATALOG_ADDR: fake.address });
      const partnerId = env.partner(10_000_000);
      const charged = async (catalogVersion: bigint) => (await quiet.createOrder({ ...orderRequest(partnerId, 'pln_silent'), catalogVersion })).order!.price;
      expect(await charged(1n)).toBe(700n);
      fake.price = 750;
      expect(await charged(1n)).toBe(700n);
      expect(fake.calls).toBe(1);
      expect(await charged(2n)).toBe(750n);
      expect(await charged(2n)).toBe(750n);
      expect(await charged(0n)).toBe(750n);
      expect(fake.calls).toBe(2);
    } finally {
      await fake.stop();
    }
  });
});

/** A CatalogService answering GetPlanPrice with `price` (standard tier) and publishing no change events. */
async function startSilentCatalog(price: number) {
  const fake = { price, calls: 0 };
  const handlers = {
    async getPlanPrice(request: { planId: string }) {
      fake.calls += 1;
      return { planId: request.planId, ...priceOf(fake.price), region: undefined, price: BigInt(fake.price) };
    },
  } as unknown as ServiceHandlers<(typeof catalogV1.CatalogService)['method']>;
  const server = await startGrpcServer({
    port: 0,
    host: '127.0.0.1',
    tls: devTlsFiles('catalog'),
    register: (s) => addService(s, catalogV1.CatalogService, handlers, () => {}),
  });
  return Object.assign(fake, { address: `127.0.0.1:${server.port}`, stop: () => server.stop(1_000) });
}
