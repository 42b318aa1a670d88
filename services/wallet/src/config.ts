import { z } from 'zod';
import { commonEnv, loadConfig } from '@esim/config';
import { serviceEnv } from '@esim/service';

const schema = z.object({
  ...serviceEnv(9094),
  GRPC_PORT: commonEnv.port(50053),
  DATABASE_URL: commonEnv.DATABASE_URL,
  CURRENCY: commonEnv.CURRENCY,
});

export type Config = z.output<typeof schema>;

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return loadConfig(schema, env);
}
