// Protects the gateway's Redis on a Redis Cluster (REDIS_CLUSTER_NODES): REDIS_URL is then not used, the credential cache's fill script and eviction transaction keep their keys in one slot, the rate limit counts through the cluster, and a killed master costs only a short outage.
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisCluster, type RedisCluster } from '@esim/testing';
import { CredentialCache } from '../src/auth/credentialCache.js';
import { RateLimit } from '../src/auth/rateLimits.js';
import { createRedis, type RedisClient } from '../src/redis.js';

const credential = { keyId: 'key_1', partnerId: 'ptn_1', secretHash: 'h', scopes: ['orders:read'], revoked: false, partnerStatus: 'approved', tier: 'standard' };
let lookups = 0;
const partners = { lookupApiKey: async () => (lookups++, credential) } as never;

describe('gateway Redis on a Redis Cluster', () => {
  let cluster: RedisCluster;
  let redis: RedisClient;
  beforeAll(async () => {
    cluster = await startRedisCluster();
    const nodes = cluster.seedNodes.split(',').map((node) => ({ host: '127.0.0.1', port: Number(node.split(':')[1]) }));
    // REDIS_URL points nowhere: with cluster nodes it must not be used at all.
    redis = createRedis({ REDIS_URL: 'redis://127.0.0.1:1', REDIS_CLUSTER_NODES: nodes });
    await redis.connect();
  }, 90_000);
  afterAll(async () => {
    await redis?.quit();
    await cluster?.stop();
  });

  it('when REDIS_CLUSTER_NODES is set, then the client is a Cluster client and REDIS_URL is ignored', async () => {
    expect(redis).toBeInstanceOf(Cluster);
    expect(await redis.ping()).toBe('PONG');
  });

  it('when credentials are cached and evicted across slots, then the script and MULTI run (one slot each) and an eviction fences a refill', async () => {
    const cache = new CredentialCache(redis, 'clu', partners);
    const prefixes = Array.from({ length: 20 }, (_, i) => `prefix${i}`);
    for (const prefix of prefixes) expect(await cache.get(prefix)).toMatchObject({ keyId: 'key_1' });
    const before = lookups;
    for (const prefix of prefixes) await cache.get(prefix);
    expect(lookups).toBe(before);
    await cache.evict(prefixes);
    await cache.get('prefix0');
    await cache.get('prefix0');
    // Fenced: the refill after an eviction is not stored, so the next read asks again.
    expect(lookups).toBe(before + 2);
  });

  it('when two clients count one key, then they share one window through the cluster', async () => {
    const limit = new RateLimit(redis, 'clu:gateway:rl:key', { points: 5, durationMs: 10_000 });
    const other = createRedis({ REDIS_URL: 'redis://127.0.0.1:1', REDIS_CLUSTER_NODES: [{ host: '127.0.0.1', port: cluster.nodes[3]!.port }] });
    await other.connect();
    const limitOther = new RateLimit(other, 'clu:gateway:rl:key', { points: 5, durationMs: 10_000 });
    const results = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => (i % 2 ? limit : limitOther).consume('key_1')));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(5);
    await other.quit();
  });

  it('when a master is SIGKILLed, then its keys answer again once the replica takes over, with the values written before', async () => {
    const [master] = await cluster.masters();
    await Promise.all(Array.from({ length: 30 }, (_, i) => redis.set(`clu:probe:{${i}}`, String(i))));
    // Replication is asynchronous: a write the master acknowledged but had not sent on dies with it. What failover
    // keeps is what reached a replica, so the test waits for that (WAIT, on each master's connection that wrote).
    await Promise.all((redis as Cluster).nodes('master').map((node) => node.call('WAIT', '1', '5000')));
    await cluster.kill(master!);
    await cluster.waitHealthy(30_000);
    const deadline = Date.now() + 20_000;
    let values: Array<string | null> = [];
    while (Date.now() < deadline) {
      values = await Promise.all(Array.from({ length: 30 }, (_, i) => redis.get(`clu:probe:{${i}}`))).catch(() => []);
      if (values.length === 30) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(values).toEqual(Array.from({ length: 30 }, (_, i) => String(i)));
    await cluster.restart(master!);
  }, 90_000);
});
