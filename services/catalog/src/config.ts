import { z } from 'zod';
import { commonEnv, loadConfig } from '@esim/config';
import { serviceEnv } from '@esim/service';

const schema = z
  .object({
    ...serviceEnv(9092),
    GRPC_PORT: commonEnv.port(50052),
    DATABASE_URL: commonEnv.DATABASE_URL,
    CURRENCY: commonEnv.CURRENCY,
    /** Load the development catalog at start; unset means "yes, unless production". */
    CATALOG_SEED: z.stringbool().optional(),
    /** Safety-net reload of the in-memory plans, for a change event missed during a NATS outage. */
    CATALOG_REFRESH_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(30_000),
  })
  .transform((env) => ({ ...env, CATALOG_SEED: env.CATALOG_SEED ?? env.NODE_ENV !== 'production' }));

export type Config = z.output<typeof schema>;

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return loadConfig(schema, env);
}
