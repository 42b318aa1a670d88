import { Cluster, Redis } from 'ioredis';
import type { RedisNode } from '@esim/config';

/**
 * The gateway's Redis: one server (REDIS_URL) or a Redis Cluster
 * (REDIS_CLUSTER_NODES). Both speak the same commands; on a cluster a
 * command that touches several keys (a script, a MULTI) must keep them in
 * one slot, which every key here does with a `{…}` hash tag shared by the
 * keys it is used with (auth/credentialCache.ts) or by being alone.
 */
export type RedisClient = Redis | Cluster;

export interface RedisSettings {
  REDIS_URL: string;
  REDIS_CLUSTER_NODES?: RedisNode[] | undefined;
  /** The cluster nodes' AUTH password; unused with REDIS_URL, which carries its own. */
  REDIS_PASSWORD?: string | undefined;
}

// Fail fast rather than queue: a request should get 503 while Redis is down, not hang. Commands
// issued in the same tick (a request's rate-limit count and catalog version) share one write.
const common = { enableOfflineQueue: false, lazyConnect: true, enableAutoPipelining: true } as const;

/**
 * Not connected yet (`connect()` is the caller's, so a boot can be aborted).
 * On a cluster, a master that dies is replaced by its replica after the
 * cluster's node timeout; meanwhile its slots answer errors (503 to the
 * client), and the client re-reads the slot map every 200 ms until the
 * replica has taken over.
 */
export function createRedis(settings: RedisSettings): RedisClient {
  if (!settings.REDIS_CLUSTER_NODES) return new Redis(settings.REDIS_URL, { ...common, maxRetriesPerRequest: 1 });
  return new Cluster(settings.REDIS_CLUSTER_NODES, {
    ...common,
    redisOptions: { maxRetriesPerRequest: 1, connectTimeout: 2_000, ...(settings.REDIS_PASSWORD ? { password: settings.REDIS_PASSWORD } : {}) },
    retryDelayOnFailover: 200,
    retryDelayOnClusterDown: 200,
    retryDelayOnTryAgain: 200,
    slotsRefreshTimeout: 2_000,
    slotsRefreshInterval: 5_000,
    clusterRetryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
}
