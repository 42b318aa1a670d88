import { randomBytes } from 'node:crypto';
import type { EventData, EventType } from '@esim/events';
import type { ServiceClient } from '@esim/grpc';
import { newId } from '@esim/ids';
import { catalogV1, ordersV1 } from '@esim/proto';
import type { Logger } from '@esim/telemetry';
import { createTestInfra, eventually, type PublishOptions, type ServedService, type TestInfra } from '@esim/testing';
import { catalogService } from '../../../catalog/src/app.js';
import { ordersService } from '../../src/app.js';
import type { Config } from '../../src/config.js';
import { startFakeProvisioning, type FakeProvisioning } from './fakeProvisioning.js';
import { startFakeWallet, type FakeWallet } from './fakeWallet.js';

export { eventually };

type OrdersMethods = (typeof ordersV1.OrdersService)['method'];
export type OrdersClient = ServiceClient<OrdersMethods>;
export type CatalogClient = ServiceClient<(typeof catalogV1.CatalogService)['method']>;
export type TestOrders = ServedService<Config, OrdersMethods>;

export interface OutboxEvent {
  subject: string;
  payload: { id: string; type: string; data: Record<string, unknown> };
}

/** `pool` is for assertions and for writes behind the service's back. */
export interface TestEnv extends Pick<TestInfra, 'databaseUrl' | 'pool' | 'query' | 'cleanup'> {
  catalog: CatalogClient;
  wallet: FakeWallet;
  provisioning: FakeProvisioning;
  /** Starts one orders instance in-process on free ports, with a gRPC client to it. */
  start(env?: Record<string, string>, logger?: Logger): Promise<TestOrders>;
  /** A new partner id whose fake wallet holds `balance` cents. */
  partner(balance?: number): string;
  /** An active seeded plan covering `country`. */
  plan(country?: string): Promise<{ id: string; name: string }>;
  /** The outbox rows about one order, in the order they were written. */
  outboxFor(orderId: string): Promise<OutboxEvent[]>;
  /** Publishes an event envelope as another service's relay would; the same `id` under a new `msgId` is a redelivery. */
  publish<T extends EventType>(type: T, data: EventData<T>, options?: PublishOptions): Promise<string>;
}

/**
 * A fresh database and NATS namespace for one test file (see
 * @esim/testing), the real catalog (seeded) in-process and a fake wallet,
 * all removed again by `cleanup`. The test plays provisioning and the
 * wallet's events: it publishes them straight to JetStream.
 */
export async function createTestEnv(): Promise<TestEnv> {
  const infra = await createTestInfra('orders');
  const { app: catalogApp, client: catalog } = await infra.serve(catalogService, catalogV1.CatalogService, { CATALOG_SEED: 'true' });
  const wallet = await startFakeWallet();
  infra.defer(() => wallet.stop());
  const provisioning = await startFakeProvisioning();
  infra.defer(() => provisioning.stop());

  return {
    databaseUrl: infra.databaseUrl,
    pool: infra.pool,
    catalog,
    wallet,
    provisioning,
    start: (env = {}, logger) =>
      infra.serve(
        ordersService,
        ordersV1.OrdersService,
        { CATALOG_ADDR: `127.0.0.1:${catalogApp.ports.grpc}`, WALLET_ADDR: wallet.address, PROVISIONING_ADDR: provisioning.address, ...env },
        logger,
      ),
    partner(balance = 100_000) {
      const id = newId('ptn');
      wallet.setBalance(id, balance);
      return id;
    },
    async plan(country = 'FR') {
      const { plans } = await catalog.listPlans({ country, tier: 'standard', page: { page: 1, limit: 1 } });
      if (!plans[0]) throw new Error(`no seeded plan for ${country}`);
      return { id: plans[0].id, name: plans[0].name };
    },
    query: infra.query,
    async outboxFor(orderId) {
      const { rows } = await infra.pool.query<OutboxEvent>(
        `SELECT subject, payload FROM orders.outbox WHERE payload->'data'->>'orderId' = $1 ORDER BY seq`,
        [orderId],
      );
      return rows;
    },
    publish: async (type, data, options) => (await infra.publish(type, data, options)).id,
    cleanup: infra.cleanup,
  };
}

/** A valid CreateOrder request body for `partnerId`; override any field. */
export function orderRequest(partnerId: string, planId: string, overrides: Partial<Record<'tier' | 'clientRequestId' | 'email' | 'phoneNumber' | 'iccid', string>> = {}) {
  return {
    partnerId,
    tier: 'standard',
    clientRequestId: `req-${randomBytes(6).toString('hex')}`,
    planId,
    email: 'jane.doe@example.com',
    phoneNumber: '+33612345678',
    ...overrides,
  };
}

/** A fresh 19-digit ICCID, so every provisioned test eSIM is its own. */
export function newIccid(): string {
  return `8933${Array.from(randomBytes(15), (byte) => byte % 10).join('')}`;
}

/** What provisioning.succeeded carries for `orderId`; `iccid` names the eSIM (a top-up's existing one). */
export function esimFor(orderId: string, iccid = newIccid()) {
  const matchingId = `MATCH-${iccid.slice(-8)}`;
  return {
    orderId,
    supplierReference: orderId,
    iccid,
    smdpAddress: 'smdp.example.com',
    matchingId,
    activationCode: `LPA:1$smdp.example.com$${matchingId}`,
  };
}
