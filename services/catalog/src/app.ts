import { connectNats, ensureStreams, namespace, startOutboxRelay } from '@esim/events';
import { addService, startGrpcServer } from '@esim/grpc';
import { createPool } from '@esim/postgres';
import { catalogV1 } from '@esim/proto';
import { startHealthServer, type ShutdownStep } from '@esim/runtime';
import type { Logger } from '@esim/telemetry';
import type { Config } from './config.js';
import { PlanCache } from './domain/planCache.js';
import { seedName, seedPlans } from './domain/seedCatalog.js';
import { startCacheRefresher } from './events/cacheRefresher.js';
import { catalogHandlers } from './grpc/handlers.js';
import { migrateCatalog } from './store/migrations.js';
import { loadAllPlans } from './store/planStore.js';
import { applySeed } from './store/seedStore.js';

export const schema = 'catalog';

export interface RunningCatalog {
  grpcPort: number;
  healthPort: number;
  cache: PlanCache;
  /** In order: stop taking calls, stop listening for changes, stop publishing, drain NATS, close Postgres. */
  shutdownSteps: ShutdownStep[];
  /** Runs the shutdown steps (tests start and stop the service in-process). */
  close(): Promise<void>;
}

/** Wires the catalog: migrations, development seed, in-memory plans, gRPC API, outbox relay, health. */
export async function startCatalog(config: Config, logger: Logger): Promise<RunningCatalog> {
  await migrateCatalog(config.DATABASE_URL, schema);
  const pool = createPool(config.DATABASE_URL, { applicationName: 'catalog' });
  const nc = await connectNats(config.NATS_URL, 'catalog');
  const ns = namespace(config.PLATFORM_NAMESPACE);
  await ensureStreams(nc, ns, ['CATALOG', 'AUDIT']);

  if (config.CATALOG_SEED) {
    const inserted = await applySeed(pool, seedName, seedPlans());
    if (inserted > 0) logger.info({ seed: seedName, plans: inserted }, 'development catalog loaded');
  }
  const cache = new PlanCache(
    () => loadAllPlans(pool),
    (error) => logger.warn({ err: error }, 'plan reload after a write failed; the next reload catches up'),
  );
  // Subscribe before the first load, so a change committed in between still triggers a reload.
  const refresher = startCacheRefresher({ cache, nc, ns, logger, intervalMs: config.CATALOG_REFRESH_MS });
  await cache.reload();

  const grpc = await startGrpcServer({
    port: config.GRPC_PORT,
    register: (server) =>
      addService(server, catalogV1.CatalogService, catalogHandlers({ pool, cache, currency: config.CURRENCY }), (error, method) =>
        logger.error({ err: error, method }, 'unexpected error in RPC'),
      ),
  });
  const relay = startOutboxRelay({ pool, schema, nc, ns, logger });
  const health = await startHealthServer({
    port: config.HEALTH_PORT,
    checks: [
      { name: 'postgres', check: () => pool.query('SELECT 1') },
      { name: 'nats', check: () => nc.flush() },
    ],
  });

  const shutdownSteps: ShutdownStep[] = [
    { name: 'readiness', run: () => health.markShuttingDown() },
    { name: 'grpc', run: () => grpc.stop() },
    { name: 'cache refresher', run: () => refresher.stop() },
    { name: 'outbox relay', run: () => relay.stop() },
    { name: 'nats', run: () => nc.drain() },
    { name: 'postgres', run: () => pool.end() },
    { name: 'health', run: () => health.close() },
  ];
  return {
    grpcPort: grpc.port,
    healthPort: health.port,
    cache,
    shutdownSteps,
    async close() {
      for (const step of shutdownSteps) await step.run();
    },
  };
}
