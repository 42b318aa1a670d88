import { fileURLToPath } from 'node:url';
import { open, parseDataKey, webhookSecretRecord } from '@esim/crypto';
import { createClient } from '@esim/grpc';
import { livemodeOf, partnerIdOf } from '@esim/ids';
import { partnersV1, webhooksV1 } from '@esim/proto';
import { defineService, grpcBinding } from '@esim/service';
import { readConfig } from './config.js';
import { endpointCache } from './delivery/endpointCache.js';
import { startEndpointChanges } from './delivery/endpointChanges.js';
import { startRetention } from './delivery/retention.js';
import { startDeliveryWorker } from './delivery/worker.js';
import { resealEndpointSecrets } from './domain/resealEndpointSecrets.js';
import { attemptDelivery, type AttemptDeps } from './domain/attemptDelivery.js';
import { eventRetentionMs } from './domain/endpoint.js';
import { deleteTestData } from './domain/deleteTestData.js';
import { recordEvent } from './domain/recordEvent.js';
import { userAgent } from './domain/signing.js';
import type { PartnersPort } from './domain/partnersPort.js';
import { webhooksHandlers } from './grpc/handlers.js';

/** How long the endpoint lookup may take; with the HTTP timeout it bounds an attempt, and so its lease. */
const endpointLookupMs = 3_000;
const leaseMarginMs = 5_000;

/** Signed webhook delivery (contract §9): keeps partner events, delivers them at least once, in order per order, and logs each delivery. */
export const webhooksService = defineService({
  name: 'webhooks',
  config: readConfig,
  postgres: { schema: 'webhooks', migrationsDir: fileURLToPath(new URL('../migrations', import.meta.url)) },
  // PARTNER_EVENTS for the test event, AUDIT for an operator's retry.
  // MAIL for the notice of an endpoint disabled for failing (§9) or changed (#24).
  publishes: ['PARTNER_EVENTS', 'AUDIT', 'MAIL'],
  async start({ config, logger, pool, consume, own, grpcTls, nc, ns }) {
    const partners = createClient(partnersV1.PartnersService, config.PARTNERS_ADDR, { tls: grpcTls() });
    // Keyed by account id: `ptn_X_test` asks the partners service for the test URL and test secret (§14).
    const endpoints = endpointCache(
      async (partnerId) => {
        const { url, sealedSecret, email, previousSealedSecret, previousSecretExpiresAt } = await partners.getWebhookEndpoint({ partnerId }, { deadlineMs: endpointLookupMs });
        return { url, sealedSecret, email, previousSealedSecret, previousSecretExpiresAt };
      },
      { ttlMs: config.WEBHOOK_ENDPOINT_CACHE_MS },
    );
    // Subscribed before the worker starts: no attempt can fill the cache before a change could drop it.
    own('endpoint changes', startEndpointChanges({ nc, ns, cache: endpoints, logger }));
    const deps: AttemptDeps = {
      pool,
      endpointOf: (partnerId) => endpoints.get(partnerId),
      dataKey: parseDataKey(config.DATA_ENCRYPTION_KEY),
      schedule: config.WEBHOOK_RETRY_SCHEDULE,
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      allowInsecure: config.WEBHOOK_ALLOW_INSECURE_URLS,
      userAgent: userAgent(config.PLATFORM_NAME),
      disableAfterMs: config.WEBHOOK_DISABLE_AFTER,
      logger,
    };
    const dataKey = deps.dataKey;
    // Endpoint secrets sealed before #24 are bound to their account now (AES-GCM associated data).
    await resealEndpointSecrets({ pool, dataKey });
    // Account ids throughout: a test account's primary endpoint is the partner's testWebhookUrl and test secret (§14).
    const partnersPort: PartnersPort = {
      async primaryOf(accountId) {
        const { url, sealedSecret, email } = await partners.getWebhookEndpoint({ partnerId: accountId }, { deadlineMs: endpointLookupMs });
        return { url, sealedSecret, email };
      },
      async setPrimaryUrl(accountId, url, audit) {
        if (livemodeOf(accountId)) {
          await partners.updatePartner({ id: accountId, webhookUrl: url ?? undefined, clearWebhookUrl: url === null, audit });
        } else {
          await partners.updatePartner({ id: partnerIdOf(accountId), testWebhookUrl: url ?? undefined, clearTestWebhookUrl: url === null, audit });
        }
      },
      async rotatePrimarySecret(accountId, overlapHours, audit) {
        if (!livemodeOf(accountId)) {
          return { secret: (await partners.rotateTestWebhookSecret({ partnerId: partnerIdOf(accountId), requestId: audit.requestId })).secret, announced: false };
        }
        const { sealedSecret } = await partners.rotateWebhookSecret({ id: accountId, audit, overlapHours });
        return { secret: open(dataKey, sealedSecret, webhookSecretRecord(accountId)), announced: true };
      },
    };
    await consume(
      {
        durable: 'webhooks_partner_notifications',
        type: 'partner.notification',
        ackWaitMs: 30_000,
        // A database outage must not drop a partner's event: back off up to a minute, for hours.
        maxDeliver: 1_000,
        retry: { firstMs: 1_000, maxMs: 60_000 },
        // Events are recorded (and numbered for delivery order) in the order they were published, failures included (§9).
        ordered: true,
        // Under a burst, up to 64 waiting events are recorded per transaction, still in stream order; a batch that
        // fails is rolled back and its events recorded one at a time, the failing one retried in place (ordered).
        batch: 64,
      },
      (event, db) => recordEvent(db, event),
    );
    await consume(
      { durable: 'webhooks_test_data_deletions', type: 'partners.test_data.delete_requested', ackWaitMs: 60_000, maxDeliver: 100, retry: { firstMs: 1_000, maxMs: 30_000 } },
      (event, db) => deleteTestData(db, event, logger),
    );
    // Stopped before the partners client (owned things stop in this order): attempts in flight still need it.
    own(
      'delivery worker',
      startDeliveryWorker({
        pool,
        logger,
        concurrency: config.WEBHOOK_CONCURRENCY,
        partnerConcurrency: config.WEBHOOK_PARTNER_CONCURRENCY,
        pollMs: config.WEBHOOK_POLL_MS,
        idlePollMs: config.WEBHOOK_IDLE_POLL_MS,
        leaseMs: config.WEBHOOK_TIMEOUT_MS + endpointLookupMs + leaseMarginMs,
        lanes: config.EVENT_LANES,
        attempt: (claimed) => attemptDelivery(deps, claimed),
      }),
    );
    own('event retention', startRetention({ pool, logger, retentionMs: eventRetentionMs, everyMs: 3_600_000 }));
    own('partners client', { stop: () => partners.close() });
    return {
      grpc: [grpcBinding(webhooksV1.WebhooksService, webhooksHandlers({ pool, platformName: config.PLATFORM_NAME, endpoints: { pool, dataKey, partners: partnersPort } }))],
      facts: { allowInsecureUrls: config.WEBHOOK_ALLOW_INSECURE_URLS, retrySchedule: config.WEBHOOK_RETRY_SCHEDULE.length },
    };
  },
});
