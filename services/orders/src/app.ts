import { fileURLToPath } from 'node:url';
import { ordersV1 } from '@esim/proto';
import { defineService, grpcBinding, startRetention } from '@esim/service';
import { cachedCatalog } from './clients/cachedCatalog.js';
import { catalogClient } from './clients/catalog.js';
import { provisioningClient } from './clients/provisioning.js';
import { walletClient } from './clients/wallet.js';
import { readConfig } from './config.js';
import type { OrdersDeps } from './domain/deps.js';
import { startConsumers } from './events/consumers.js';
import { ordersHandlers, testModeMinRemainingMs } from './grpc/handlers.js';
import { startCancelSweeper } from './jobs/cancelSweeper.js';
import { startPendingSweeper } from './jobs/pendingSweeper.js';
import { startProcessingSweeper } from './jobs/processingSweeper.js';
import { startReconciliationJob } from './jobs/reconciliationJob.js';
import { schema } from './store/orderStore.js';
import { ordersRetention } from './store/retentionStore.js';

/** Orders: creation (idempotent, paid through the wallet), the saga's later steps from events, eSIM state, cancellation, reads. */
export const ordersService = defineService({
  name: 'orders',
  config: readConfig,
  postgres: { schema, migrationsDir: fileURLToPath(new URL('../migrations', import.meta.url)) },
  publishes: ['ORDERS', 'PARTNER_EVENTS'],
  async start(context) {
    const { config, logger, pool, own } = context;
    const prices = cachedCatalog({
      catalog: catalogClient(config.CATALOG_ADDR, context.grpcTls()),
      ttlMs: config.ORDERS_PRICE_CACHE_MS,
      nc: context.nc,
      ns: context.ns,
      logger,
    });
    const { catalog } = prices;
    const wallet = walletClient(config.WALLET_ADDR, context.grpcTls());
    const provisioning = provisioningClient(config.PROVISIONING_ADDR, context.grpcTls());
    const deps: OrdersDeps = { pool, catalog, wallet, provisioning, cancelWindowMs: config.ORDER_CANCEL_WINDOW, currency: config.CURRENCY, logger };
    await startConsumers(context);
    // Owned things stop in this order, after the gRPC server has finished its calls: the sweepers' rounds, then the clients they use.
    own('pending sweeper', startPendingSweeper(deps, { intervalMs: config.ORDERS_SWEEP_INTERVAL_MS, olderThanMs: config.ORDERS_SWEEP_AFTER_MS }));
    own(
      'processing sweeper',
      startProcessingSweeper(deps, { intervalMs: config.ORDERS_PROCESSING_SWEEP_INTERVAL_MS, olderThanMs: config.ORDERS_PROCESSING_SWEEP_AFTER_MS }),
    );
    own('cancel sweeper', startCancelSweeper(deps, { intervalMs: config.ORDERS_SWEEP_INTERVAL_MS, olderThanMs: config.ORDERS_CANCEL_SWEEP_AFTER_MS }));
    const reconciliation = { heldAfterMs: config.ORDERS_RECONCILE_HELD_AFTER_MS, paidWithinDays: 7 };
    own('reconciliation', startReconciliationJob(deps, { ...reconciliation, intervalMs: config.ORDERS_RECONCILE_INTERVAL_MS }));
    // Contract §11: the tables that grow with traffic are pruned on their retention (docs/retention.md), hourly.
    own('retention', startRetention({ pool, logger, rules: ordersRetention, everyMs: 3_600_000 }));
    own('price cache', prices);
    own('catalog client', { stop: () => catalog.close() });
    own('wallet client', { stop: () => wallet.close() });
    own('provisioning client', { stop: () => provisioning.close() });
    return { grpc: [grpcBinding(ordersV1.OrdersService, ordersHandlers(deps, reconciliation, { concurrency: config.ORDERS_TEST_MODE_CONCURRENCY, queueMax: config.ORDERS_TEST_MODE_QUEUE_MAX, minRemainingMs: testModeMinRemainingMs }))] };
  },
});
