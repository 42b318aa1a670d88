import { z } from 'zod';
import { commonEnv, loadConfig } from '@esim/config';
import { serviceEnv } from '@esim/service';

const ms = (min: number, max: number, fallback: number) => z.coerce.number().int().min(min).max(max).default(fallback);

const schema = z
  .object({
    ...serviceEnv(9096),
    /** RevokeBundle (ProvisioningService), for the orders service's cancellations. */
    GRPC_PORT: commonEnv.port(50056),
    DATABASE_URL: commonEnv.DATABASE_URL,
    /** The upstream supplier's base URL (the simulator in development). */
    SUPPLIER_URL: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).default('http://127.0.0.1:8090'),
    /** One supplier call's deadline; a call past it counts as a transient failure. */
    SUPPLIER_TIMEOUT_MS: ms(100, 120_000, 10_000),
    /** How long after the order was paid transient supplier failures are retried before the order fails (contract §8: 15 min). */
    PROVISIONING_RETRY_WINDOW_MS: ms(1_000, 86_400_000, 900_000),
    /** First retry delay; each later one doubles, up to the max. */
    PROVISIONING_RETRY_BASE_MS: ms(10, 600_000, 1_000),
    PROVISIONING_RETRY_MAX_MS: ms(10, 3_600_000, 60_000),
    /** Supplier calls in flight at once per replica; each holds a Postgres connection for its duration. */
    PROVISIONING_CONCURRENCY: z.coerce.number().int().min(1).max(12).default(8),
  })
  .refine((env) => env.PROVISIONING_RETRY_MAX_MS >= env.PROVISIONING_RETRY_BASE_MS, {
    path: ['PROVISIONING_RETRY_MAX_MS'],
    message: 'must be at least PROVISIONING_RETRY_BASE_MS',
  });

export type Config = z.output<typeof schema>;

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return loadConfig(schema, env);
}
