import { z } from 'zod';
import { booleanFlag, commonEnv, durationMs, loadConfig, withDevSecrets } from '@esim/config';
import { generateDataKey } from '@esim/crypto';
import { grpcAddress, serviceEnv } from '@esim/service';

/** `10s,30s,2m` → [10000, 30000, 120000]: the delays between attempts (contract §2). */
const retrySchedule = z.string().transform((text, ctx) => {
  const delays = text.split(',').map((part) => durationMs(part));
  if (delays.length === 0 || delays.length > 50 || delays.some((delay) => delay === undefined || delay < 1 || delay > 7 * 86_400_000)) {
    ctx.addIssue({ code: 'custom', message: 'must be a comma-separated list of 1 to 50 durations such as 10s,30s,2m,1h (each at most 7d)' });
    return z.NEVER;
  }
  return delays as number[];
});

/** `5d` → 432000000 (contract §2: parsed like the retry schedule's durations). */
const duration = (fallbackMs: number) =>
  z
    .string()
    .transform((text, ctx) => {
      const ms = durationMs(text);
      if (ms === undefined || ms < 1 || ms > 365 * 86_400_000) {
        ctx.addIssue({ code: 'custom', message: 'must be a duration such as 5d, 12h, 30m or 10s (at most 365d)' });
        return z.NEVER;
      }
      return ms;
    })
    .default(fallbackMs);

const count = (min: number, max: number, fallback: number) => z.coerce.number().int().min(min).max(max).default(fallback);

const schema = z
  .object({
    ...serviceEnv(9098),
    GRPC_PORT: commonEnv.port(50055),
    DATABASE_URL: commonEnv.DATABASE_URL,
    PARTNERS_ADDR: grpcAddress('127.0.0.1:50051'),
    /** Opens the sealed webhook secrets the partners service hands out; the same key as its own (var/secrets in development). */
    DATA_ENCRYPTION_KEY: z.base64().refine((value) => Buffer.from(value, 'base64').length === 32, 'must be base64 of 32 bytes'),
    /** Names the platform in the User-Agent and the test event's message. */
    PLATFORM_NAME: z.string().min(1).max(100).default('Partner Platform'),
    WEBHOOK_RETRY_SCHEDULE: retrySchedule.default([10_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 10_800_000, 21_600_000, 43_200_000, 86_400_000]),
    /** An endpoint whose every attempt has failed for this long (and at least 10 times) is disabled (§9). */
    WEBHOOK_DISABLE_AFTER: duration(5 * 86_400_000),
    /** Per attempt: DNS, connect and the response's status line must all arrive within it. */
    WEBHOOK_TIMEOUT_MS: count(100, 120_000, 10_000),
    /** Unset means "yes, unless production" (contract §2). */
    WEBHOOK_ALLOW_INSECURE_URLS: booleanFlag.optional(),
    /** Attempts in flight in this process, over every partner. */
    WEBHOOK_CONCURRENCY: count(1, 1_000, 32),
    /** Attempts in flight to one partner, over every replica, so a slow partner holds only its own slots. */
    WEBHOOK_PARTNER_CONCURRENCY: count(1, 100, 4),
    /** How often an idle worker looks for due deliveries. */
    WEBHOOK_POLL_MS: count(10, 60_000, 200),
    /** How long an idle worker that listens for new deliveries sleeps at most (the safety net; retries wake it when due). */
    WEBHOOK_IDLE_POLL_MS: count(100, 3_600_000, 5_000),
    /**
     * How long a partner's endpoint (URL, sealed secret) is kept between
     * lookups; a change event drops it at once, so this is only the backstop
     * for a missed event. 0 asks the partners service at every attempt.
     */
    WEBHOOK_ENDPOINT_CACHE_MS: count(0, 3_600_000, 60_000),
  })
  .transform((env) => ({ ...env, WEBHOOK_ALLOW_INSECURE_URLS: env.WEBHOOK_ALLOW_INSECURE_URLS ?? env.NODE_ENV !== 'production' }));

export type Config = z.output<typeof schema>;

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return loadConfig(schema, withDevSecrets(env, { DATA_ENCRYPTION_KEY: generateDataKey }));
}
