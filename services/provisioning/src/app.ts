import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { provisioningV1 } from '@esim/proto';
import { exactlyOnceAroundCall } from '@esim/events';
import { defineService, grpcBinding, startRetention } from '@esim/service';
import { readConfig, type Config } from './config.js';
import { createConnectivityClient } from './connectivity/connectivityClient.js';
import { provisionOrder } from './domain/provisionOrder.js';
import { recordProgress } from './domain/recordProgress.js';
import { retryPolicy } from './domain/retryPolicy.js';
import { deleteTestData } from './domain/deleteTestData.js';
import { singleUpstreams, upstreamsByMode, type UpstreamsByMode } from './domain/upstreams.js';
import { notifyServer } from './es2/notifyServer.js';
import { provisioningHandlers } from './grpc/handlers.js';
import { createSimulatorControl } from './simulator/simulatorControl.js';
import { provisioningRetention } from './store/retentionStore.js';
import { createEs2PlusClient } from './smdp/es2plusClient.js';

/** The PEM files of SMDP_CLIENT_CERT/KEY/CA, read once at boot (a missing file stops the boot, naming it). */
function smdpTls(config: Config): { cert: string; key: string; ca: string } | undefined {
  if (!config.SMDP_CLIENT_CERT || !config.SMDP_CLIENT_KEY || !config.SMDP_CA) return undefined;
  const read = (name: string, path: string) => {
    try {
      return readFileSync(path, 'utf8');
    } catch (error) {
      throw new Error(`${name}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  };
  return { cert: read('SMDP_CLIENT_CERT', config.SMDP_CLIENT_CERT), key: read('SMDP_CLIENT_KEY', config.SMDP_CLIENT_KEY), ca: read('SMDP_CA', config.SMDP_CA) };
}

/**
 * Live orders reach SMDP_ES2_URL and CONNECTIVITY_URL; test orders reach
 * TEST_MODE_SMDP_ES2_URL and TEST_MODE_CONNECTIVITY_URL (the simulator, plain
 * HTTP inside the platform: the ES2+ client identity is the live SM-DP+'s).
 */
function modeUpstreams(config: Config, tls: ReturnType<typeof smdpTls>): UpstreamsByMode {
  const timeoutMs = config.SUPPLIER_TIMEOUT_MS;
  const requesterId = config.SMDP_REQUESTER_ID;
  const live = singleUpstreams(
    createEs2PlusClient({ baseUrl: config.SMDP_ES2_URL, requesterId, timeoutMs, tls, defaultSmdpAddress: config.SMDP_ADDRESS }),
    createConnectivityClient({ baseUrl: config.CONNECTIVITY_URL, timeoutMs }),
    config.SMDP_PROFILE_TYPE,
  );
  const test = singleUpstreams(
    createEs2PlusClient({ baseUrl: config.TEST_MODE_SMDP_ES2_URL, requesterId, timeoutMs, tls: undefined, defaultSmdpAddress: new URL(config.TEST_MODE_SMDP_ES2_URL).hostname }),
    createConnectivityClient({ baseUrl: config.TEST_MODE_CONNECTIVITY_URL, timeoutMs }),
    config.SMDP_PROFILE_TYPE,
  );
  return upstreamsByMode(live, test);
}

/**
 * Turns each paid order into an eSIM (or, for a top-up, a bundle on one)
 * from the two upstreams of contract §8 — the SM-DP+ over GSMA ES2+ and the
 * connectivity provider — and publishes the outcome; serves the SM-DP+'s
 * HandleDownloadProgressInfo on ES2_NOTIFY_PORT; answers RevokeBundle and
 * suspension for the orders service and GetProvisioning for its sweeper.
 * Every upstream call is made here. Readiness has no upstream check: an
 * outage must not take the worker out of service; its calls fail and are
 * retried instead.
 */
export const provisioningService = defineService({
  name: 'provisioning',
  config: readConfig,
  // Each in-flight upstream call holds one idle connection (its event's advisory lock, no transaction) and briefly a second (its step records, then its result's short transaction), plus a few spare.
  postgres: { schema: 'provisioning', migrationsDir: fileURLToPath(new URL('../migrations', import.meta.url)), poolSize: 24 },
  publishes: ['PROVISIONING'],
  async start({ config, logger, pool, schema, consume, own }) {
    const policy = retryPolicy({
      windowMs: config.PROVISIONING_RETRY_WINDOW_MS,
      baseMs: config.PROVISIONING_RETRY_BASE_MS,
      maxMs: config.PROVISIONING_RETRY_MAX_MS,
      supplierTimeoutMs: config.SUPPLIER_TIMEOUT_MS,
    });
    const tls = smdpTls(config);
    const upstreams = modeUpstreams(config, tls);
    const control = createSimulatorControl({ baseUrl: config.TEST_MODE_CONNECTIVITY_URL });
    // The supplier is called with no transaction open (exactlyOnceAroundCall): a transaction held across the network
    // holds back vacuum's horizon for the whole database (docs/benchmarks.md, "Flat with history").
    // Spelled as a literal spec: scripts/deploy/natsPermissions.ts reads the durable and its type from the source.
    const orderPaid = { durable: 'provisioning_order_paid', type: 'orders.order.paid' as const };
    await consume(
      { ...orderPaid, ackWaitMs: policy.ackWaitMs, maxDeliver: policy.maxDeliver, retry: policy.retry, concurrency: config.PROVISIONING_CONCURRENCY, exactlyOnce: false },
      exactlyOnceAroundCall(pool, schema, orderPaid.durable, provisionOrder({ upstreams, pool, schema, retryWindowMs: policy.windowMs, logger })),
    );
    // Contract §14: a partner's test data wiped; this service's rows of that test account go.
    await consume({ durable: 'provisioning_test_data_deleted', type: 'partners.test_data.delete_requested', ackWaitMs: 30_000, maxDeliver: 20 }, deleteTestData({ logger }));
    const notify = notifyServer({
      port: config.ES2_NOTIFY_PORT,
      host: config.ES2_NOTIFY_HOST,
      tls,
      record: (info) => recordProgress({ pool, schema, logger }, info),
      logger,
    });
    // Contract §11: the tables that grow with traffic are pruned on their retention (docs/retention.md), hourly.
    own('retention', startRetention({ pool, logger, rules: provisioningRetention, everyMs: 3_600_000 }));
    // The origins only: a URL may carry credentials.
    return {
      grpc: [grpcBinding(provisioningV1.ProvisioningService, provisioningHandlers({ upstreams, control, pool, logger }))],
      http: [notify],
      facts: {
        smdp: new URL(config.SMDP_ES2_URL).origin,
        connectivity: new URL(config.CONNECTIVITY_URL).origin,
        testModeSmdp: new URL(config.TEST_MODE_SMDP_ES2_URL).origin,
        testModeConnectivity: new URL(config.TEST_MODE_CONNECTIVITY_URL).origin,
        es2Tls: tls !== undefined,
        retryWindowMs: policy.windowMs,
        maxDeliver: policy.maxDeliver,
      },
    };
  },
});
