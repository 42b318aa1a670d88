import type { ServiceClient } from '@esim/grpc';
import { catalogV1 } from '@esim/proto';
import { createTestInfra, eventually, type ServedService, type TestInfra } from '@esim/testing';
import { catalogService } from '../../src/app.js';
import type { Config } from '../../src/config.js';

export { eventually };

type CatalogMethods = (typeof catalogV1.CatalogService)['method'];
export type CatalogClient = ServiceClient<CatalogMethods>;
export type TestCatalog = ServedService<Config, CatalogMethods>;

export interface TestEnv extends Pick<TestInfra, 'databaseUrl' | 'namespace' | 'query' | 'cleanup'> {
  /** Starts one catalog instance (seeded) in-process on free ports, with a gRPC client to it. */
  start(env?: Record<string, string>): Promise<TestCatalog>;
}

/** A fresh database and NATS namespace for one test file (see @esim/testing), removed by `cleanup`. */
export async function createTestEnv(): Promise<TestEnv> {
  const infra = await createTestInfra('catalog', { poolSize: 2 });
  return {
    databaseUrl: infra.databaseUrl,
    namespace: infra.namespace,
    start: (env = {}) => infra.serve(catalogService, catalogV1.CatalogService, { CATALOG_SEED: 'true', ...env }),
    query: infra.query,
    cleanup: infra.cleanup,
  };
}
