import { jetstreamManager } from '@nats-io/jetstream';
import type { EventData, EventEnvelope } from '@esim/events';
import type { ServiceClient } from '@esim/grpc';
import { provisioningV1 } from '@esim/proto';
import type { RunningService } from '@esim/service';
import { newId } from '@esim/ids';
import { createTestInfra, until, type TestInfra } from '@esim/testing';
import { provisioningService } from '../../src/app.js';
import type { Config } from '../../src/config.js';
import type { SupplierCall } from '../../src/domain/supplierCall.js';
import { findSupplierCall } from '../../src/store/supplierCalls.js';

export { until };

/** The live account every published order belongs to unless the test names one (test mode's accounts end in _test). */
export const livePartnerId = newId('ptn');

export type ProvisioningClient = ServiceClient<(typeof provisioningV1.ProvisioningService)['method']>;

export type ProvisioningResult = EventEnvelope<'provisioning.succeeded'> | EventEnvelope<'provisioning.failed'>;

export interface TestEnv extends Pick<TestInfra, 'databaseUrl' | 'pool' | 'cleanup'> {
  /** Starts provisioning in-process on this database and namespace (short retries unless `env` says otherwise). */
  start(env: Record<string, string>): Promise<RunningService<Config>>;
  /**
   * Publishes `orders.order.paid` into the namespace's ORDERS stream as the
   * orders service's relay would (Nats-Msg-Id = event id unless `msgId` says
   * otherwise, to get past the duplicate window on purpose).
   */
  publishPaid(data: Pick<EventData<'orders.order.paid'>, 'orderId' | 'supplierSku'> & Partial<Pick<EventData<'orders.order.paid'>, 'partnerId' | 'customerEmail' | 'kind' | 'iccid' | 'dataMb' | 'validityDays'>>, options?: { eventId?: string; msgId?: string; occurredAt?: string }): Promise<EventEnvelope<'orders.order.paid'>>;
  /** Publishes any contract event into the namespace, as its owner's relay would. */
  publish: TestInfra['publish'];
  /** A gRPC client to the running instance's ProvisioningService. */
  client(running: RunningService<Config>): ProvisioningClient;
  /** Result events provisioning wrote to its outbox for the order, oldest first. */
  results(orderId: string): Promise<ProvisioningResult[]>;
  supplierCall(orderId: string): Promise<SupplierCall | undefined>;
  /** True once every published event was delivered and acknowledged (nothing pending, nothing awaiting a retry). */
  settled(): Promise<boolean>;
}

/** A fresh database and NATS namespace for one test file (see @esim/testing), removed by `cleanup`. */
export async function createTestEnv(): Promise<TestEnv> {
  const infra = await createTestInfra('provisioning', { poolSize: 2 });
  const { ns, pool } = infra;

  return {
    databaseUrl: infra.databaseUrl,
    pool,
    // The simulator plays both upstreams: SUPPLIER_URL (the connectivity provider's alias) names the SM-DP+ too unless SMDP_ES2_URL is given.
    start: (env) =>
      infra.start(provisioningService, {
        PROVISIONING_RETRY_BASE_MS: '50',
        PROVISIONING_RETRY_MAX_MS: '200',
        ES2_NOTIFY_PORT: '0',
        ES2_NOTIFY_HOST: '127.0.0.1',
        ...(env.SUPPLIER_URL && !env.SMDP_ES2_URL ? { SMDP_ES2_URL: env.SUPPLIER_URL } : {}),
        ...env,
      }),
    publishPaid: (data, options = {}) =>
      infra.publish(
        'orders.order.paid',
        { partnerId: livePartnerId, planId: 'plan_test', price: 750, currency: 'USD', kind: 'esim', iccid: null, ...data },
        { id: options.eventId, msgId: options.msgId, occurredAt: options.occurredAt },
      ),
    async results(orderId) {
      const { rows } = await pool.query<{ payload: ProvisioningResult }>(
        `SELECT payload FROM provisioning.outbox WHERE payload->'data'->>'orderId' = $1 ORDER BY seq`,
        [orderId],
      );
      return rows.map((row) => row.payload);
    },
    supplierCall: (orderId) => findSupplierCall(pool, orderId),
    publish: (type, data, options) => infra.publish(type, data, options),
    client: (running) => infra.client(provisioningV1.ProvisioningService, running),
    async settled() {
      const jsm = await jetstreamManager(await infra.nats());
      const info = await jsm.consumers.info(ns.stream('ORDERS'), ns.durable('provisioning_order_paid'));
      return info.num_pending === 0 && info.num_ack_pending === 0;
    },
    cleanup: infra.cleanup,
  };
}
