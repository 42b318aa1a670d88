import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { booleanFlag, commonEnv, durationMs, loadConfig, withDevSecrets } from '@esim/config';
import { grpcAddress, runtimeEnv, testModeGrpcAddress } from '@esim/service';

/** `100/1s` → { points: 100, durationMs: 1000 }. */
const rateLimit = z.string().transform((text, ctx) => {
  const [count, window] = text.split('/');
  const points = Number(count);
  const windowMs = window ? durationMs(window) : undefined;
  if (!Number.isInteger(points) || points < 1 || !windowMs) {
    ctx.addIssue({ code: 'custom', message: 'must look like 100/1s (requests per window)' });
    return z.NEVER;
  }
  return { points, durationMs: windowMs };
});


/**
 * Which proxies in front of the gateway may set X-Forwarded-For, as fastify's
 * `trustProxy` takes it: `false` (default: the peer is the client), a hop
 * count (`1` behind one ingress), or addresses/CIDRs of the proxies
 * (`10.0.0.0/8,fd00::/8`). Never `true` behind an ingress that appends: the
 * left-most address is whatever the client wrote, and per-address limits
 * (register) would key on it.
 */
const trustProxy = z
  .string()
  .trim()
  .transform((text, ctx): boolean | number | string[] => {
    if (text === '' || text === 'false') return false;
    if (text === 'true') return true;
    if (/^\d+$/.test(text)) return Number(text);
    const entries = text.split(',').map((entry) => entry.trim());
    if (entries.every((entry) => /^[0-9a-f.:]+(\/\d{1,3})?$/i.test(entry))) return entries;
    ctx.addIssue({ code: 'custom', message: 'must be false, true, a hop count, or comma-separated proxy addresses/CIDRs' });
    return z.NEVER;
  });

const schema = z
  .object({
    NODE_ENV: commonEnv.NODE_ENV,
    LOG_LEVEL: commonEnv.LOG_LEVEL,
    REDIS_URL: commonEnv.REDIS_URL,
    REDIS_CLUSTER_NODES: commonEnv.REDIS_CLUSTER_NODES,
    // The AUTH password of every Redis Cluster node (the seed list carries none); a single Redis takes it in REDIS_URL.
    REDIS_PASSWORD: z.preprocess((value) => (value === '' ? undefined : value), z.string().min(1).optional()),
    NATS_URL: commonEnv.NATS_URL,
    PLATFORM_NAMESPACE: commonEnv.PLATFORM_NAMESPACE,
    CURRENCY: commonEnv.CURRENCY,
    ...runtimeEnv,
    HOST: z.string().default('0.0.0.0'),
    TRUST_PROXY: trustProxy.default(false),
    PORT: commonEnv.port(8080),
    ADMIN_PORT: commonEnv.port(8081),
    // The backends; each one down makes only its own routes answer 503 (§1).
    PARTNERS_ADDR: grpcAddress('127.0.0.1:50051'),
    CATALOG_ADDR: grpcAddress('127.0.0.1:50052'),
    WALLET_ADDR: grpcAddress('127.0.0.1:50053'),
    ORDERS_ADDR: grpcAddress('127.0.0.1:50054'),
    WEBHOOKS_ADDR: grpcAddress('127.0.0.1:50055'),
    // §14: a test account's calls go to test-mode replicas when these name them (backends.ts); unset, to the above.
    WALLET_TEST_ADDR: testModeGrpcAddress(),
    ORDERS_TEST_ADDR: testModeGrpcAddress(),
    WEBHOOKS_TEST_ADDR: testModeGrpcAddress(),
    ADMIN_TOKEN: z.string().min(24, 'must be at least 24 characters'),
    JWT_SECRET: z.base64().refine((v) => Buffer.from(v, 'base64').length >= 32, 'must be base64 of at least 32 bytes'),
    JWT_ISSUER: z.string().default('esim-platform'),
    /** Verifies the supplier's X-Supplier-Signature on /supplier/v1/notifications (contract §13). */
    SUPPLIER_CALLBACK_SECRET: z.string().min(16, 'must be at least 16 characters'),
    RATE_LIMIT_PER_KEY: rateLimit.default({ points: 100, durationMs: 1_000 }),
    // §14: per test key, apart from the live keys' budget.
    RATE_LIMIT_PER_TEST_KEY: rateLimit.default({ points: 25, durationMs: 1_000 }),
    REGISTER_RATE_LIMIT: rateLimit.default({ points: 20, durationMs: 3_600_000 }),
    LOGIN_FAILURE_LIMIT: rateLimit.default({ points: 10, durationMs: 900_000 }),
    // #24 (§3): failed logins per source address, portal requests per partner, test webhooks per partner.
    LOGIN_ADDRESS_FAILURE_LIMIT: rateLimit.default({ points: 100, durationMs: 900_000 }),
    RATE_LIMIT_PER_PORTAL: rateLimit.default({ points: 20, durationMs: 1_000 }),
    WEBHOOK_TEST_LIMIT: rateLimit.default({ points: 10, durationMs: 60_000 }),
    // Verification and password-reset requests per source address (as REGISTER_RATE_LIMIT for registrations).
    ACCOUNT_RATE_LIMIT: rateLimit.default({ points: 20, durationMs: 3_600_000 }),
    WEBHOOK_ALLOW_INSECURE_URLS: booleanFlag.optional(),
  })
  .transform((config) => ({
    ...config,
    WEBHOOK_ALLOW_INSECURE_URLS: config.WEBHOOK_ALLOW_INSECURE_URLS ?? config.NODE_ENV !== 'production',
  }));

export type Config = z.output<typeof schema>;

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return loadConfig(
    schema,
    withDevSecrets(env, {
      ADMIN_TOKEN: () => `adm_${randomBytes(24).toString('base64url')}`,
      JWT_SECRET: () => randomBytes(32).toString('base64'),
      // The same file the simulator reads under npm start, so both sides share it.
      SUPPLIER_CALLBACK_SECRET: () => randomBytes(32).toString('base64url'),
    }),
  );
}
