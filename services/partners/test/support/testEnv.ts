import { fileURLToPath } from 'node:url';
import { generateDataKey, parseDataKey } from '@esim/crypto';
import type { ServiceClient } from '@esim/grpc';
import { migrate } from '@esim/postgres';
import { partnersV1 } from '@esim/proto';
import { createTestInfra, type ServedService, type TestInfra } from '@esim/testing';
import { partnersService } from '../../src/app.js';
import type { Config } from '../../src/config.js';

const migrationsDir = fileURLToPath(new URL('../../migrations', import.meta.url));

type PartnersMethods = (typeof partnersV1.PartnersService)['method'];
export type PartnersClient = ServiceClient<PartnersMethods>;

export interface TestEnv extends Pick<TestInfra, 'databaseUrl' | 'query' | 'cleanup'> {
  /** The data key the service seals secrets with, to open what it mails. */
  dataKey: Buffer;
  /** Applies only the partners migrations (no service, no NATS). */
  migrate(): Promise<void>;
  /** Starts one partners instance in-process on free ports, with a gRPC client to it. */
  start(): Promise<ServedService<Config, PartnersMethods>>;
}

/** A fresh database and NATS namespace for one test file (see @esim/testing), removed by `cleanup`. */
export async function createTestEnv(): Promise<TestEnv> {
  const infra = await createTestInfra('partners', { poolSize: 2 });
  const dataKeyBase64 = generateDataKey();
  return {
    databaseUrl: infra.databaseUrl,
    dataKey: parseDataKey(dataKeyBase64),
    migrate: () => migrate({ connectionString: infra.databaseUrl, schema: 'partners', dir: migrationsDir }),
    // The lowest hashing cost the config accepts: the tests check the hash, not its strength.
    start: () => infra.serve(partnersService, partnersV1.PartnersService, { DATA_ENCRYPTION_KEY: dataKeyBase64, PASSWORD_HASH_COST: '1024' }),
    query: infra.query,
    cleanup: infra.cleanup,
  };
}
