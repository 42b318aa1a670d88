// Protects what every service's test suite relies on from its harness: a database and namespace of its own, services started on them, events published as a relay would, and a cleanup that leaves nothing behind.
import { jetstreamManager } from '@nats-io/jetstream';
import { connectNats } from '@esim/events';
import { createPool } from '@esim/postgres';
import { catalogV1 } from '@esim/proto';
import { defineService, grpcBinding } from '@esim/service';
import { describe, expect, it } from 'vitest';
import { createTestInfra, eventually, natsUrl, postgresUrl, until } from '@esim/testing';

/** The smallest service there is: NATS, a stream it publishes to, a health port, nothing else. */
const probe = defineService({
  name: 'probe',
  config: (env) => ({ NODE_ENV: env.NODE_ENV, LOG_LEVEL: 'silent', NATS_URL: env.NATS_URL, PLATFORM_NAMESPACE: env.PLATFORM_NAMESPACE ?? '', HEALTH_PORT: Number(env.HEALTH_PORT) }),
  publishes: ['CATALOG'],
  start: async () => ({}),
});

/** A catalog that knows one price, to reach over gRPC. */
const pricer = defineService({
  name: 'pricer',
  config: (env) => ({ NODE_ENV: env.NODE_ENV, LOG_LEVEL: 'silent', NATS_URL: env.NATS_URL, PLATFORM_NAMESPACE: env.PLATFORM_NAMESPACE ?? '', HEALTH_PORT: Number(env.HEALTH_PORT), GRPC_PORT: Number(env.GRPC_PORT) }),
  start: async () => ({
    grpc: [
      grpcBinding(catalogV1.CatalogService, {
        getPlanPrice: async ({ planId, tier }: { planId: string; tier: string }) => ({ planId, planName: `price for ${tier}`, price: 750n, currency: 'USD', supplierSku: 'SKU-1' }),
      } as never),
    ],
  }),
});

async function databaseExists(url: string): Promise<boolean> {
  const admin = createPool(`${postgresUrl}/postgres`, { applicationName: 'testing-test', max: 1 });
  try {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [new URL(url).pathname.slice(1)]);
    return rowCount === 1;
  } finally {
    await admin.end();
  }
}

async function streamsOf(prefix: string): Promise<string[]> {
  const nc = await connectNats(natsUrl, 'testing-test');
  try {
    const names: string[] = [];
    for await (const stream of (await jetstreamManager(nc)).streams.list()) {
      if (stream.config.name.startsWith(prefix)) names.push(stream.config.name);
    }
    return names.sort();
  } finally {
    await nc.close();
  }
}

const healthAnswers = (port: number) => fetch(`http://127.0.0.1:${port}/healthz`).then(() => true, () => false);

describe('createTestInfra', () => {
  it('when created, then the service variables point at a fresh database and a valid namespace of its own, on free ports', async () => {
    const infra = await createTestInfra('orders');
    try {
      expect(infra.databaseUrl).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:5432\/esim_orders_test_[0-9a-f]{12}$/);
      expect(infra.namespace).toMatch(/^[a-z][a-z0-9_]{0,30}$/);
      expect(await databaseExists(infra.databaseUrl)).toBe(true);
      expect(infra.env({ CATALOG_SEED: 'true', GRPC_PORT: '7' })).toEqual({
        NODE_ENV: 'test',
        DATABASE_URL: infra.databaseUrl,
        NATS_URL: natsUrl,
        PLATFORM_NAMESPACE: infra.namespace,
        GRPC_PORT: '7',
        HEALTH_PORT: '0',
        CATALOG_SEED: 'true',
      });
      expect(await infra.query<{ db: string }>('SELECT current_database() AS db')).toEqual([{ db: new URL(infra.databaseUrl).pathname.slice(1) }]);
    } finally {
      await infra.cleanup();
    }
  });

  it('when two files use the same label, then they get different databases and namespaces', async () => {
    const [a, b] = await Promise.all([createTestInfra('wallet'), createTestInfra('wallet')]);
    try {
      expect(a.databaseUrl).not.toBe(b.databaseUrl);
      expect(a.namespace).not.toBe(b.namespace);
    } finally {
      await Promise.all([a.cleanup(), b.cleanup()]);
    }
  });

  it('when the longest service name is the label, then the namespace still fits PLATFORM_NAMESPACE', async () => {
    const infra = await createTestInfra('supplier-sim-with-a-long-name');
    try {
      expect(infra.namespace).toMatch(/^[a-z][a-z0-9_]{0,30}$/);
    } finally {
      await infra.cleanup();
    }
  });

  it('when an event is published twice under its id, then JetStream keeps one; under a new msgId, then it is delivered again', async () => {
    const infra = await createTestInfra('testing');
    try {
      const first = await infra.publish('orders.order.paid', { orderId: 'ord_1', partnerId: 'ptn_1', planId: 'plan_1', supplierSku: 'SKU', price: 750, currency: 'USD', kind: 'esim', iccid: null });
      expect(first).toMatchObject({ type: 'orders.order.paid', data: { orderId: 'ord_1' } });
      expect(first.id).toMatch(/^evt_/);
      const data = first.data;
      await infra.publish('orders.order.paid', data, { id: first.id });
      const jsm = await jetstreamManager(await infra.nats());
      expect((await jsm.streams.info(infra.ns.stream('ORDERS'))).state.messages).toBe(1);
      await infra.publish('orders.order.paid', data, { id: first.id, msgId: `${first.id}-again` });
      expect((await jsm.streams.info(infra.ns.stream('ORDERS'))).state.messages).toBe(2);
    } finally {
      await infra.cleanup();
    }
  });

  it('when cleaned up, then started services and deferred fakes stop, the database is dropped and every stream of the namespace is deleted', async () => {
    const infra = await createTestInfra('testing');
    const app = await infra.start(probe);
    const stopped: string[] = [];
    infra.defer(() => stopped.push('fake'));
    await infra.publish('catalog.plan.changed', { planId: 'plan_1', active: true });
    await infra.publish('partners.credentials.changed', { partnerId: 'ptn_1', prefixes: [] });
    expect(await healthAnswers(app.ports.health)).toBe(true);
    expect(await streamsOf(infra.ns.stream(''))).toEqual([infra.ns.stream('CATALOG'), infra.ns.stream('PARTNERS')]);

    await infra.cleanup();

    expect(stopped).toEqual(['fake']);
    expect(await healthAnswers(app.ports.health)).toBe(false);
    expect(await databaseExists(infra.databaseUrl)).toBe(false);
    expect(await streamsOf(infra.ns.stream(''))).toEqual([]);
  });

  it('when a service is served, then its client reaches it on the free port it bound, until cleanup closes both', async () => {
    const infra = await createTestInfra('testing');
    const { app, client } = await infra.serve(pricer, catalogV1.CatalogService);
    expect(app.ports.grpc).toBeGreaterThan(0);
    expect(await client.getPlanPrice({ planId: 'plan_1', tier: 'premium' })).toMatchObject({ planId: 'plan_1', planName: 'price for premium', price: 750n });

    await infra.cleanup();

    await expect(client.getPlanPrice({ planId: 'plan_1', tier: 'premium' })).rejects.toThrow();
    expect(await healthAnswers(app.ports.health)).toBe(false);
  });

  it('when one cleanup step fails, then the others still run and the failure is reported', async () => {
    const infra = await createTestInfra('testing');
    infra.defer(() => {
      throw new Error('fake would not stop');
    });
    await expect(infra.cleanup()).rejects.toThrow('fake would not stop');
    expect(await databaseExists(infra.databaseUrl)).toBe(false);
  });

  it('when the label does not start with a letter, then it is refused before anything is created', async () => {
    await expect(createTestInfra('9lives')).rejects.toThrow('must start with a letter');
  });
});

describe('eventually and until', () => {
  it('when the condition comes true, then eventually answers true', async () => {
    let calls = 0;
    expect(await eventually(() => ++calls >= 3, 2_000, 1)).toBe(true);
    expect(calls).toBe(3);
  });

  it('when the condition never holds, then eventually answers false and until names what it waited for', async () => {
    expect(await eventually(() => false, 30, 5)).toBe(false);
    await expect(until(() => false, 'the relay to publish', 30, 5)).rejects.toThrow('timed out after 30 ms waiting for the relay to publish');
  });
});
