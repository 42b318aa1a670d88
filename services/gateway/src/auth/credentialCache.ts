import type { Redis } from 'ioredis';
import { AppError } from '@esim/errors';
import type { ServiceClient } from '@esim/grpc';
import type { partnersV1 } from '@esim/proto';

export interface Credential {
  keyId: string;
  partnerId: string;
  secretHash: string;
  scopes: string[];
  revoked: boolean;
  partnerStatus: string;
  tier: string;
}

const ttlSeconds = 300;
const unknownTtlSeconds = 30;
/** Longer than the lookup's gRPC deadline, so a lookup that started before an eviction cannot refill the cache after it. */
const evictionFenceMs = 10_000;

// Fill only when no eviction happened recently: closes the race where a
// lookup answered before a revocation lands in the cache after its eviction.
const fillScript = `
if redis.call('EXISTS', KEYS[2]) == 0 then
  redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
end
return 1`;

/** Redis being down is an outage the client may retry (503), not a bug. */
export function redisUnavailable(cause: unknown): never {
  throw new AppError('UNAVAILABLE', 'A dependency is unavailable; retry shortly.', { cause });
}

/**
 * API key credentials cached in Redis, shared by every gateway replica. The
 * partners service announces changes (revocation, suspension, tier) with a
 * `partners.credentials.changed` event, and `evict` drops them, so a revoked
 * key stops working everywhere within the outbox relay's latency.
 */
export class CredentialCache {
  constructor(
    private readonly redis: Redis,
    private readonly namespace: string,
    private readonly partners: ServiceClient<typeof partnersV1.PartnersService.method>,
  ) {}

  private key(prefix: string): string {
    return `${this.namespace}:gateway:credential:${prefix}`;
  }

  private fence(prefix: string): string {
    return `${this.namespace}:gateway:credential-evicted:${prefix}`;
  }

  /** The credential for a key prefix, or null when no key has it. */
  async get(prefix: string): Promise<Credential | null> {
    const cached = await this.redis.get(this.key(prefix)).catch(redisUnavailable);
    if (cached) return cached === 'unknown' ? null : (JSON.parse(cached) as Credential);
    let credential: Credential | null;
    try {
      const found = await this.partners.lookupApiKey({ prefix });
      credential = {
        keyId: found.keyId,
        partnerId: found.partnerId,
        secretHash: found.secretHash,
        scopes: found.scopes,
        revoked: found.revoked,
        partnerStatus: found.partnerStatus,
        tier: found.tier,
      };
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'NOT_FOUND') throw error;
      credential = null;
    }
    await this.redis
      .eval(
      fillScript,
      2,
      this.key(prefix),
      this.fence(prefix),
      credential ? JSON.stringify(credential) : 'unknown',
        credential ? ttlSeconds : unknownTtlSeconds,
      )
      .catch(redisUnavailable);
    return credential;
  }

  async evict(prefixes: string[]): Promise<void> {
    if (prefixes.length === 0) return;
    const pipeline = this.redis.multi();
    for (const prefix of prefixes) {
      pipeline.set(this.fence(prefix), '1', 'PX', evictionFenceMs);
      pipeline.del(this.key(prefix));
    }
    await pipeline.exec();
  }
}
