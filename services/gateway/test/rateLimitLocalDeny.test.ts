// Protects the rate limit's local deny on real Redis: once Redis refuses a key, this replica refuses it with the same 429 headers without counting in Redis again, another replica still gets Redis's answer, and the key is let through again when the window resets.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '@esim/errors';
import { RateLimit } from '../src/auth/rateLimits.js';

/** The headers a route's reply would carry. */
function replyStub() {
  const headers: Record<string, string> = {};
  return { headers, reply: { header: (name: string, value: string) => ((headers[name] = value), undefined) } as never };
}

const refusal = (error: unknown) => error instanceof AppError && error.code === 'RATE_LIMITED';

describe('rate limit, local deny', () => {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { lazyConnect: true });
  const prefix = `localdeny-${randomBytes(4).toString('hex')}:gateway:rl:key`;
  beforeAll(() => redis.connect());
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  it('when a key is over its limit, then later requests are refused with the same headers and Redis is not counted again', async () => {
    const limit = new RateLimit(redis as never, prefix, { points: 2, durationMs: 1_000 });
    await limit.consume('key_a');
    await limit.consume('key_a');
    const first = replyStub();
    await expect(limit.consume('key_a', first.reply)).rejects.toSatisfy(refusal);
    const countedInRedis = await redis.get(`${prefix}:key_a`);
    expect(countedInRedis).toBe('3');

    const local = replyStub();
    await expect(limit.consume('key_a', local.reply)).rejects.toSatisfy(refusal);
    expect(limit.deniedLocally('key_a')).toBe(true);
    expect(await redis.get(`${prefix}:key_a`)).toBe(countedInRedis);
    expect(local.headers['ratelimit-limit']).toBe('2');
    expect(local.headers['ratelimit-remaining']).toBe('0');
    expect(Number(local.headers['ratelimit-reset'])).toBe(Number(first.headers['ratelimit-reset']));
    expect(Number(local.headers['retry-after'])).toBeGreaterThanOrEqual(1);

    // Another replica (its own RateLimit) has no local denial: Redis answers it, and refuses it too.
    const otherReplica = new RateLimit(redis as never, prefix, { points: 2, durationMs: 1_000 });
    expect(otherReplica.deniedLocally('key_a')).toBe(false);
    await expect(otherReplica.consume('key_a')).rejects.toSatisfy(refusal);
    expect(await redis.get(`${prefix}:key_a`)).toBe('4');
    // Another key is untouched.
    await expect(limit.consume('key_b')).resolves.toBeUndefined();
  });

  it('when the window resets, then the key is let through again', async () => {
    const limit = new RateLimit(redis as never, prefix, { points: 1, durationMs: 1_000 });
    await limit.consume('key_c');
    await expect(limit.consume('key_c')).rejects.toSatisfy(refusal);
    const ttlMs = await redis.pttl(`${prefix}:key_c`);
    await new Promise((r) => setTimeout(r, ttlMs + 20));
    await expect(limit.consume('key_c')).resolves.toBeUndefined();
  });
});
