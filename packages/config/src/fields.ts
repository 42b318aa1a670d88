import { z } from 'zod';

/** Lower-case letters, digits and `_`: it prefixes Redis keys, NATS subjects, stream and consumer names. */
export const namespaceSchema = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,30}$/, 'must be lower-case letters, digits or _, starting with a letter (max 31)');

const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

/** Variables every service shares (contract §2), each with a working local default. */
export const commonEnv = {
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATABASE_URL: z.url().default('postgres://postgres@127.0.0.1:5432/esim'),
  REDIS_URL: z.url().default('redis://127.0.0.1:6379'),
  NATS_URL: z.string().min(1).default('nats://127.0.0.1:4222'),
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
