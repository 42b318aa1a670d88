import { z } from 'zod';

/** Lower-case letters, digits and `_`: it prefixes Redis keys, NATS subjects, stream and consumer names. */
export const namespaceSchema = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,30}$/, 'must be lower-case letters, digits or _, starting with a letter (max 31)');

/**
 * `nats://a:4222,nats://b:4222,…`: the servers of ONE NATS cluster (a client
 * connects to any and fails over to the others). Each entry is a nats:// or
 * tls:// URL or a bare host:port.
 */
export const natsServers = z
  .string()
  .trim()
  .min(1)
  .refine(
    (text) => text.split(',').every((entry) => /^((nats|tls):\/\/([^\s@/]+@)?)?[^\s:/@,]+(:\d{1,5})?$/.test(entry.trim())),
    'must be a comma-separated list of nats://host:port (the servers of one cluster)',
  );

/** `NATS_URL` as the client takes it: one entry per server. */
export const natsServerList = (url: string): string[] => url.split(',').map((entry) => entry.trim()).filter(Boolean);

/** `host:port,host:port,…` → seed nodes of a Redis Cluster. An empty value means unset. */
export const redisClusterNodes = z.preprocess(
  (value) => (value === '' ? undefined : value),
  z
    .string()
    .transform((text, ctx) => {
      const nodes = text.split(',').map((entry) => entry.trim());
      const parsed = nodes.map((node) => /^([^\s:/]+):(\d{1,5})$/.exec(node));
      if (nodes.length === 0 || parsed.some((match) => !match || Number(match[2]) > 65535)) {
        ctx.addIssue({ code: 'custom', message: 'must be host:port,host:port,… (seed nodes of one Redis Cluster)' });
        return z.NEVER;
      }
      return parsed.map((match) => ({ host: match![1]!, port: Number(match![2]) }));
    })
    .optional(),
);
export type RedisNode = { host: string; port: number };

const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

/** Variables every service shares (contract §2), each with a working local default. */
export const commonEnv = {
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATABASE_URL: z.url().default('postgres://postgres@127.0.0.1:5432/esim'),
  REDIS_URL: z.url().default('redis://127.0.0.1:6379'),
  NATS_URL: natsServers.default('nats://127.0.0.1:4222'),
  /** Set: a Redis Cluster through these seed nodes, and REDIS_URL is not used at all. */
  REDIS_CLUSTER_NODES: redisClusterNodes,
  PLATFORM_NAMESPACE: namespaceSchema.default('esim'),
  CURRENCY: z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code').default('USD'),
  port,
} as const;

/** Parses `10s`, `2m`, `1h`, `250ms` or a bare number of milliseconds. */
export function durationMs(text: string): number | undefined {
  const match = /^(\d+)(ms|s|m|h|d)?$/.exec(text.trim());
  if (!match) return undefined;
  const unitMs = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] ?? 'ms'] ?? 1;
  return Number(match[1]) * unitMs;
}

/** `true` or `false`, nothing else (a typo must fail the boot, not read as false). */
export const booleanFlag = z.enum(['true', 'false']).transform((value) => value === 'true');
