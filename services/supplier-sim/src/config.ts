import { z } from 'zod';
import { commonEnv, loadConfig } from '@esim/config';
import { serviceEnv } from '@esim/service';

const schema = z.object({
  ...serviceEnv(9097),
  /** The supplier API's port (SUPPLIER_URL of the platform points here). */
  PORT: commonEnv.port(8090),
  HOST: z.string().min(1).default('0.0.0.0'),
  /** Delay before every answer, as a real upstream has; 0 answers at once (tests). */
  SUPPLIER_LATENCY_MS: z.coerce.number().int().min(0).max(60_000).default(300),
  /** Share of requests answered with a random 503, from 0 (never) to 1 (always). */
  SUPPLIER_FAILURE_RATE: z.coerce.number().min(0).max(1).default(0),
  /** The SM-DP+ server named in every activation code. */
  SUPPLIER_SMDP_ADDRESS: z
    .string()
    .regex(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/i, 'must be a host name such as smdp.example.com')
    .default('smdp.supplier-sim.local'),
});

export type Config = z.output<typeof schema>;

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return loadConfig(schema, env);
}
