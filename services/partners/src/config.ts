import { z } from 'zod';
import { commonEnv, loadConfig, withDevSecrets } from '@esim/config';
import { generateDataKey } from '@esim/crypto';
import { serviceEnv } from '@esim/service';

const schema = z.object({
  ...serviceEnv(9091),
  GRPC_PORT: commonEnv.port(50051),
  DATABASE_URL: commonEnv.DATABASE_URL,
  DATA_ENCRYPTION_KEY: z.base64().refine((value) => Buffer.from(value, 'base64').length === 32, 'must be base64 of 32 bytes'),
  /** scrypt cost; tests lower it to keep the suite fast, production keeps the default. */
  PASSWORD_HASH_COST: z.coerce
    .number()
    .int()
    .min(1024)
    .refine((n) => (n & (n - 1)) === 0, 'must be a power of two (scrypt N)')
    .default(32768),
  /** scrypt runs at once (each holds 128·N·8 bytes); the rest wait in a queue of PASSWORD_HASH_QUEUE, beyond which logins answer 503. */
  PASSWORD_HASH_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  PASSWORD_HASH_QUEUE: z.coerce.number().int().min(0).max(10_000).default(16),
});

export type Config = z.output<typeof schema>;

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return loadConfig(schema, withDevSecrets(env, { DATA_ENCRYPTION_KEY: generateDataKey }));
}
