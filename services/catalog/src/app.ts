import { fileURLToPath } from 'node:url';
import { catalogV1 } from '@esim/proto';
import { defineService, grpcBinding } from '@esim/service';
import { readConfig } from './config.js';
import { PlanCache } from './domain/planCache.js';
import { seedName, seedPlans } from './domain/seedCatalog.js';
import { startCacheRefresher } from './events/cacheRefresher.js';
import { catalogHandlers } from './grpc/handlers.js';
import { loadAllPlans } from './store/planStore.js';
import { applySeed } from './store/seedStore.js';

/** Plans, tier pricing and the development catalog; every plan is served from memory. */
export const catalogService = defineService({
  name: 'catalog',
  config: readConfig,
  postgres: { schema: 'catalog', migrationsDir: fileURLToPath(new URL('../migrations', import.meta.url)) },
  publishes: ['CATALOG', 'AUDIT'],
  async start({ config, logger, pool, nc, ns, own }) {
    if (config.CATALOG_SEED) {
      const inserted = await applySeed(pool, seedName, seedPlans());
      if (inserted > 0) logger.info({ seed: seedName, plans: inserted }, 'development catalog loaded');
    }
    const cache = new PlanCache(
      () => loadAllPlans(pool),
      (error) => logger.warn({ err: error }, 'plan reload after a write failed; the next reload catches up'),
    );
    // Subscribe before the first load, so a change committed in between still triggers a reload.
    own('cache refresher', startCacheRefresher({ cache, nc, ns, logger, intervalMs: config.CATALOG_REFRESH_MS }));
    await cache.reload();
    return {
      grpc: [grpcBinding(catalogV1.CatalogService, catalogHandlers({ pool, cache, currency: config.CURRENCY }))],
      facts: { plans: cache.size() },
    };
  },
});
