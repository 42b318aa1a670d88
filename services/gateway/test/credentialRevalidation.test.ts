// Protects key revocation without NATS (#24): the gateway's shared credential cache looks a key up again after a second, so a revoked key stops within 2 s even when no eviction event arrives; while the partners service is down, the last credential read keeps serving.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '@esim/errors';
import { CredentialCache, revalidateAfterMs } from '../src/auth/credentialCache.js';

const base = { keyId: 'key_1', partnerId: 'ptn_1', secretHash: 'h', scopes: ['orders:read'], revoked: false, partnerStatus: 'approved', tier: 'standard' };

describe('the shared credential cache', () => {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { lazyConnect: true });
  const namespace = `revalidate-${randomBytes(4).toString('hex')}`;
  let now = 1_000_000;
  let answer: () => typeof base = () => base;
  let lookups = 0;
  const partners = { lookupApiKey: async () => (lookups++, answer()) } as never;
  const cache = new CredentialCache(redis as never, namespace, partners, () => now);

  beforeAll(() => redis.connect());
  afterAll(async () => {
    const keys = await redis.keys(`${namespace}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('when a key is revoked and no eviction event arrives, then the next read after the revalidation interval sees it revoked', async () => {
    expect(await cache.get('prefixa')).toMatchObject({ revoked: false });
    const before = lookups;
    now += revalidateAfterMs - 1;
    expect(await cache.get('prefixa')).toMatchObject({ revoked: false });
    expect(lookups).toBe(before);

    answer = () => ({ ...base, revoked: true });
    now += 2;
    expect(await cache.get('prefixa')).toMatchObject({ revoked: true });
    expect(lookups).toBe(before + 1);
  });

  it('when the partners service is unavailable, then the last credential read keeps serving; when it is unknown, it answers null', async () => {
    answer = () => base;
    await cache.get('prefixb');
    answer = () => {
      throw new AppError('UNAVAILABLE', 'partners down');
    };
    now += revalidateAfterMs * 5;
    expect(await cache.get('prefixb')).toMatchObject({ keyId: 'key_1', revoked: false });
    await expect(cache.get('never-seen')).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });

  it('when the partners service answers a test key, then the credential is not live; an answer without the field (an older service) and an entry cached before test mode are live', async () => {
    answer = () => ({ ...base, test: true }) as typeof base;
    expect(await cache.get('prefixc')).toMatchObject({ livemode: false });
    answer = () => base;
    expect(await cache.get('prefixd')).toMatchObject({ livemode: true });
    const { livemode: _dropped, ...older } = { ...base, livemode: true, cachedAtMs: now };
    await redis.set(`${namespace}:gateway:credential:{prefixe}`, JSON.stringify(older));
    expect(await cache.get('prefixe')).toMatchObject({ keyId: 'key_1', livemode: true });
  });
});
