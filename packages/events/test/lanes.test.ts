// Protects test mode's own lane through the saga (#26, contract §14 "nothing a test key sends can … slow live data"):
// a test account's saga event goes out on its type's `.test` subject and reaches only the test lane's durable, a live
// one only the live durable, so test-mode replicas (EVENT_LANES=test) and live ones never take each other's work.
import { jetstreamManager } from '@nats-io/jetstream';
import { consumedLanes, enqueueEvent, ensureStreams, laneOf, parseLanes, startConsumer, startOutboxRelay, type EventEnvelope, type OutboxRelay, type RunningConsumer } from '@esim/events';
import { accountIdOf, newId } from '@esim/ids';
import { withTransaction } from '@esim/postgres';
import { createLogger } from '@esim/telemetry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestInfra, until, type TestInfra } from './support/infra.js';

const logger = createLogger('lanes-test', 'silent');
const live = newId('ptn');
const test = accountIdOf(live, false);

describe('which lane an event takes', () => {
  it('when a saga event names a test account, then it is on the test lane; a live account, or an event that is not a saga event, stays live', () => {
    const paid = { orderId: 'ord_1', planId: 'pln_1', supplierSku: 'SKU', price: 100, currency: 'EUR', kind: 'esim', iccid: null } as const;
    expect(laneOf('orders.order.paid', { ...paid, partnerId: test })).toBe('test');
    expect(laneOf('orders.order.paid', { ...paid, partnerId: live })).toBe('live');
    expect(laneOf('provisioning.succeeded', { orderId: 'ord_1', partnerId: test, supplierReference: 'r', iccid: 'i', smdpAddress: 's', matchingId: 'm', activationCode: 'a' })).toBe('test');
    // Written before lanes: no account, so live, where every process consumed it before.
    expect(laneOf('provisioning.failed', { orderId: 'ord_1', reason: 'x' })).toBe('live');
    // Heard by every replica, or rare: one subject whatever the mode.
    expect(laneOf('partners.webhook_endpoint.changed', { partnerId: test })).toBe('live');
    expect(laneOf('partners.test_data.delete_requested', { accountId: test, requestedAt: new Date().toISOString() })).toBe('live');
  });

  it('when a process serves one lane, then it consumes saga events in that lane only, and the rest only if it serves live', () => {
    expect(consumedLanes('orders.order.paid', ['live', 'test'])).toEqual(['live', 'test']);
    expect(consumedLanes('orders.order.paid', ['test'])).toEqual(['test']);
    expect(consumedLanes('orders.order.paid', ['live'])).toEqual(['live']);
    expect(consumedLanes('mail.requested', ['test'])).toEqual([]);
    expect(consumedLanes('mail.requested', ['live', 'test'])).toEqual(['live']);
  });

  it('when EVENT_LANES names something else, then it is refused naming the variable', () => {
    expect(parseLanes(' test , live')).toEqual(['live', 'test']);
    expect(() => parseLanes('staging')).toThrow(/EVENT_LANES/);
    expect(() => parseLanes('')).toThrow(/EVENT_LANES/);
  });
});

describe('lanes over JetStream', () => {
  let infra: TestInfra;
  let relay: OutboxRelay;
  const running: RunningConsumer[] = [];
  const type = 'orders.order.provisioned';

  beforeAll(async () => {
    infra = await createTestInfra('lanes');
    await ensureStreams(infra.nc, infra.ns, ['ORDERS']);
    relay = startOutboxRelay({ pool: infra.pool, schema: infra.schema, nc: infra.nc, ns: infra.ns, logger, pollMs: 10 });
  });
  afterAll(async () => {
    for (const consumer of running) await consumer.stop();
    await relay?.stop();
    await infra?.cleanup();
  });

  it('when a live and a test order are provisioned, then each lane durable gets its own mode only, under its own name', async () => {
    const seen = { live: [] as string[], test: [] as string[] };
    for (const lane of ['live', 'test'] as const) {
      running.push(
        await startConsumer({
          nc: infra.nc,
          ns: infra.ns,
          logger,
          spec: { durable: 'lanes_check', type, ackWaitMs: 5_000, maxDeliver: 3, lane },
          handle: async (event: EventEnvelope<typeof type>) => void seen[lane].push(event.data.partnerId),
        }),
      );
    }
    for (const partnerId of [live, test, live, test]) {
      await withTransaction(infra.pool, (db) => enqueueEvent(db, infra.schema, type, { orderId: newId('ord'), partnerId }));
    }
    await until(() => (seen.live.length + seen.test.length === 4 ? true : undefined), 'four events consumed');
    expect(seen).toEqual({ live: [live, live], test: [test, test] });

    const { rows } = await infra.pool.query<{ subject: string }>(`SELECT subject FROM ${infra.schema}.outbox ORDER BY seq`);
    expect(rows.map((row) => row.subject)).toEqual([type, `${type}.test`, type, `${type}.test`]);
    const jsm = await jetstreamManager(infra.nc);
    const test_ = await jsm.consumers.info(infra.ns.stream('ORDERS'), infra.ns.durable('lanes_check_test'));
    expect(test_.config.filter_subject).toBe(infra.ns.subject(`${type}.test`));
    expect(test_.delivered.consumer_seq).toBe(2);
    const live_ = await jsm.consumers.info(infra.ns.stream('ORDERS'), infra.ns.durable('lanes_check'));
    expect(live_.config.filter_subject).toBe(infra.ns.subject(type));
    expect(live_.delivered.consumer_seq).toBe(2);
  });

  it('when a relay serves the test lane only, then a test commit wakes it, it publishes test rows and leaves live rows to a live relay, which publishes them', async () => {
    await infra.pool.query(`DELETE FROM ${infra.schema}.outbox`);
    await relay.stop();
    // Polls once an hour: only its lane's NOTIFY can wake it after its first tick.
    const testOnly = startOutboxRelay({ pool: infra.pool, schema: infra.schema, nc: infra.nc, ns: infra.ns, logger, pollMs: 3_600_000, idlePollMs: 3_600_000, lanes: ['test'] });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const ids = { live: '', test: '' };
    try {
      ids.live = await withTransaction(infra.pool, (db) => enqueueEvent(db, infra.schema, type, { orderId: newId('ord'), partnerId: live }));
      ids.test = await withTransaction(infra.pool, (db) => enqueueEvent(db, infra.schema, type, { orderId: newId('ord'), partnerId: test }));
      const publishedOf = async () =>
        Object.fromEntries(
          (await infra.pool.query<{ id: string; published: boolean }>(`SELECT id, published_at IS NOT NULL AS published FROM ${infra.schema}.outbox`)).rows.map((row) => [row.id, row.published]),
        );
      await until(async () => ((await publishedOf())[ids.test] ? true : undefined), 'the test row published');
      await new Promise((r) => setTimeout(r, 200));
      expect(await publishedOf()).toEqual({ [ids.live]: false, [ids.test]: true });
    } finally {
      await testOnly.stop();
    }
    relay = startOutboxRelay({ pool: infra.pool, schema: infra.schema, nc: infra.nc, ns: infra.ns, logger, pollMs: 10, lanes: ['live'] });
    await until(
      async () => ((await infra.pool.query(`SELECT 1 FROM ${infra.schema}.outbox WHERE published_at IS NULL`)).rowCount === 0 ? true : undefined),
      'the live row published by a live relay',
    );
  });
});
