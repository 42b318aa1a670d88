import { randomBytes } from 'node:crypto';
import { connectNats, ensureStreams, namespace } from '@esim/events';
import { createClient, type ServiceClient } from '@esim/grpc';
import { createPool, ensureDatabase } from '@esim/postgres';
import { catalogV1 } from '@esim/proto';
import { createLogger } from '@esim/telemetry';
import { startCatalog, type RunningCatalog } from '../../src/app.js';
import { readConfig } from '../../src/config.js';

/**
 * Real infrastructure for one test file: a fresh Postgres database and a
 * fresh NATS namespace, removed again by `cleanup`.
 */
const postgresUrl = 'postgres://postgres@127.0.0.1:5432';
const natsUrl = 'nats://127.0.0.1:4222';

export type CatalogClient = ServiceClient<(typeof catalogV1.CatalogService)['method']>;

export interface TestCatalog {
  app: RunningCatalog;
  client: CatalogClient;
}

export interface TestEnv {
  databaseUrl: string;
  namespace: string;
  /** Starts one catalog instance in-process on free ports, with a gRPC client to it. */
  start(env?: Record<string, string>): Promise<TestCatalog>;
  /** Runs `sql` against the test database (assertions on the outbox, say). */
  query<T extends object>(sql: string, params?: unknown[]): Promise<T[]>;
  cleanup(): Promise<void>;
}

export async function createTestEnv(): Promise<TestEnv> {
  const suffix = randomBytes(6).toString('hex');
  const database = `esim_catalog_test_${suffix}`;
  const databaseUrl = `${postgresUrl}/${database}`;
  const ns = `cattest_${suffix}`;
  await ensureDatabase(databaseUrl);
  const pool = createPool(databaseUrl, { applicationName: 'catalog-test', max: 2 });
  const started: TestCatalog[] = [];

  return {
    databaseUrl,
    namespace: ns,
    async start(env = {}) {
      const config = readConfig({
        NODE_ENV: 'test',
        DATABASE_URL: databaseUrl,
        NATS_URL: natsUrl,
        PLATFORM_NAMESPACE: ns,
        GRPC_PORT: '0',
        HEALTH_PORT: '0',
        CATALOG_SEED: 'true',
        ...env,
      });
      const app = await startCatalog(config, createLogger('catalog', 'silent'));
      const client: CatalogClient = createClient(catalogV1.CatalogService, `127.0.0.1:${app.grpcPort}`);
      started.push({ app, client });
      return { app, client };
    },
    async query<T extends object>(sql: string, params: unknown[] = []) {
      return (await pool.query(sql, params)).rows as T[];
    },
    async cleanup() {
      for (const { app, client } of started) {
        client.close();
        await app.close();
      }
      await pool.end();
      await dropDatabase(database);
      await deleteStreams(ns);
    },
  };
}

async function dropDatabase(database: string): Promise<void> {
  const admin = createPool(`${postgresUrl}/postgres`, { applicationName: 'catalog-test', max: 1 });
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

async function deleteStreams(ns: string): Promise<void> {
  const nc = await connectNats(natsUrl, 'catalog-test');
  try {
    const jsm = await ensureStreams(nc, namespace(ns), []);
    for (const stream of ['CATALOG', 'AUDIT']) await jsm.streams.delete(namespace(ns).stream(stream)).catch(() => false);
  } finally {
    await nc.close();
  }
}

/** Polls `check` every 50 ms until it returns true or `timeoutMs` passes. */
export async function eventually(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return check();
}
