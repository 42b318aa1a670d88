import { z } from 'zod';
import { commonEnv, loadConfig, withDevSecrets } from '@esim/config';
import { generateDataKey } from '@esim/crypto';
import { serviceEnv } from '@esim/service';

const schema = z.object({
  ...serviceEnv(9091),
  GRPC_PORT: commonEnv.port(50051),
  DATABASE_URL: commonEnv.DATABASE_URL,
  DATA_ENCRYPTION_KEY: z.base64().refine((value) => Buffer.from(value, 'base64').length === 32, 'must be base64 of 32 bytes'),
  /**
   * scrypt N (r = 8, p = 1). Unset: OWASP's 2^17 in production, 2^15 elsewhere
   * (the development and test platforms share small machines); tests lower it
   * further. Login re-hashes a password stored at a lower N.
   */
  PASSWORD_HASH_COST: z.coerce
    .number()
    .int()
    .min(1024)
    .refine((n) => (n & (n - 1)) === 0, 'must be a power of two (scrypt N)')
    .optional(),
  /** scrypt runs at once (each holds 128·N·8 bytes); the rest wait in a queue of PASSWORD_HASH_QUEUE, beyond which logins answer 503. */
  PASSWORD_HASH_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  PASSWORD_HASH_QUEUE: z.coerce.number().int().min(0).max(10_000).default(32),
});

/** OWASP's scrypt parameters (Password Storage Cheat Sheet): N = 2^17, r = 8, p = 1. */
export const owaspPasswordCost = 131072;

export type Config = Omit<z.output<typeof schema>, 'PASSWORD_HASH_COST'> & { PASSWORD_HASH_COST: number };

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const config = loadConfig(schema, withDevSecrets(env, { DATA_ENCRYPTION_KEY: generateDataKey }));
  return { ...config, PASSWORD_HASH_COST: config.PASSWORD_HASH_COST ?? (env.NODE_ENV === 'production' ? owaspPasswordCost : 32768) };
}
