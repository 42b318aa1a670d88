import { generateDataKey, parseDataKey } from '@esim/crypto';
import { enqueueEvent, type EventData } from '@esim/events';
import type { ServiceClient } from '@esim/grpc';
import { newId } from '@esim/ids';
import { webhooksV1 } from '@esim/proto';
import { createTestInfra, eventually, type ServedService, type TestInfra } from '@esim/testing';
import { webhooksService } from '../../src/app.js';
import type { Config } from '../../src/config.js';
import { newWebhookSecret, startFakePartners, type FakePartners } from './fakePartners.js';
import { startReceiver, type Receiver } from './receiver.js';

export { eventually };

type WebhooksMethods = (typeof webhooksV1.WebhooksService)['method'];
export type WebhooksClient = ServiceClient<WebhooksMethods>;
export type Notification = EventData<'partner.notification'>;
export type TestWebhooks = ServedService<Config, WebhooksMethods>;

export interface TestPartner {
  id: string;
  secret: string;
  /** The receiver path this partner's webhooks arrive on. */
  path: string;
}

export interface DeliveryRow {
  id: string;
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: Date | null;
  delivered_at: Date | null;
}

export interface TestEnv extends Pick<TestInfra, 'databaseUrl' | 'namespace' | 'query' | 'cleanup'> {
  /** Publishes another service's event straight to JetStream (a partners fact such as the test-data wipe). */
  publishFact: TestInfra['publish'];
  dataKeyBase64: string;
  partners: FakePartners;
  receiver: Receiver;
  /** The variables a webhooks instance of this file runs with (the child-process test reuses them). */
  baseEnv(): Record<string, string>;
  /** Starts one webhooks instance in-process on free ports, with a gRPC client to it. */
  start(env?: Record<string, string>): Promise<TestWebhooks>;
  /** A partner whose endpoint is the receiver at /p/<id>, with a fresh secret. */
  addPartner(options?: { url?: string | null }): TestPartner;
  /** Changes a partner's endpoint as the partners service does: the new one, then `partners.webhook_endpoint.changed`. */
  changeEndpoint(partnerId: string, endpoint: { url?: string | undefined; secret?: string | undefined }): Promise<void>;
  /** Queues a partner.notification in the webhooks outbox; a running instance's relay publishes it. */
  publish(notification: Notification): Promise<string>;
  deliveryOf(eventId: string): Promise<DeliveryRow | undefined>;
}

/**
 * Real Postgres, NATS and HTTP for one test file: a fresh database and
 * namespace (see @esim/testing), a fake partners service and a receiver.
 */
export async function createTestEnv(): Promise<TestEnv> {
  const infra = await createTestInfra('webhooks', { poolSize: 3 });
  const dataKeyBase64 = generateDataKey();
  const partners = await startFakePartners(parseDataKey(dataKeyBase64));
  infra.defer(() => partners.close());
  const receiver = await startReceiver();

  const baseEnv = () =>
    infra.env({
      LOG_LEVEL: 'silent',
      PARTNERS_ADDR: partners.address,
      DATA_ENCRYPTION_KEY: dataKeyBase64,
      PLATFORM_NAME: 'Test Platform',
      WEBHOOK_ALLOW_INSECURE_URLS: 'true',
      WEBHOOK_POLL_MS: '25',
      // No test may lean on the safety-net poll: new deliveries wake the worker by NOTIFY, retries by their due time.
      WEBHOOK_IDLE_POLL_MS: '3600000',
    });

  return {
    databaseUrl: infra.databaseUrl,
    namespace: infra.namespace,
    dataKeyBase64,
    partners,
    receiver,
    baseEnv,
    start: (env = {}) => infra.serve(webhooksService, webhooksV1.WebhooksService, { ...baseEnv(), ...env }),
    addPartner(options = {}) {
      const id = newId('ptn');
      const path = `/p/${id}`;
      const secret = newWebhookSecret();
      partners.setEndpoint(id, { url: options.url === null ? undefined : (options.url ?? receiver.url(path)), secret });
      return { id, secret, path };
    },
    async changeEndpoint(partnerId, endpoint) {
      partners.setEndpoint(partnerId, endpoint);
      await infra.publish('partners.webhook_endpoint.changed', { partnerId });
    },
    publish: (notification) => enqueueEvent(infra.pool, 'webhooks', 'partner.notification', notification),
    async deliveryOf(eventId) {
      const { rows } = await infra.pool.query<DeliveryRow>(
        'SELECT id, status, attempts, last_status_code, last_error, next_attempt_at, delivered_at FROM webhooks.deliveries WHERE event_id = $1',
        [eventId],
      );
      return rows[0];
    },
    query: infra.query,
    publishFact: infra.publish,
    async cleanup() {
      // The receiver goes first, so attempts hanging on it end now rather than at their timeout.
      try {
        await receiver.close();
      } finally {
        await infra.cleanup();
      }
    },
  };
}
