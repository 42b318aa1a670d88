import type { RedisClient } from '../redis.js';
import type { KeyCredential } from '@esim/api-keys';
import { AppError } from '@esim/errors';
import type { ServiceClient } from '@esim/grpc';
import type { partnersV1 } from '@esim/proto';
import { isOneOf, partnerStatuses, scopes, tiers, type Scope } from '@esim/vocabulary';

/** A key's credential as the partners service looks it up (one declaration, in @esim/api-keys). */
export type Credential = KeyCredential;

/** The partners service speaks the same vocabularies; a value outside them is a bug there, not a caller's mistake. */
function credentialOf(found: partnersV1.ApiKeyCredential): Credential {
  const { keyId, partnerId, secretHash, revoked, partnerStatus, tier } = found;
  const livemode = !found.test;
  if (!isOneOf(partnerStatuses, partnerStatus) || !isOneOf(tiers, tier) || !found.scopes.every((s) => isOneOf(scopes, s))) {
    throw new AppError('INTERNAL', `key ${keyId} has a status, tier or scope outside the vocabulary`);
  }
  return { keyId, partnerId, livemode, secretHash, scopes: found.scopes as Scope[], revoked, partnerStatus, tier };
}

const ttlSeconds = 300;
const unknownTtlSeconds = 30;
/**
 * How long a cached credential is trusted before it is looked up again
 * (#24). The eviction event drops a revoked key at once; this bounds it when
 * the event cannot flow (the partners service cut off from NATS): with the
 * replicas' 1 s local cache, a revocation holds within 2 s either way. While
 * the partners service is unavailable, the last credential read (at most
 * `ttlSeconds` old) keeps serving, so an outage there does not stop traffic.
 */
export const revalidateAfterMs = 1_000;
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
    private readonly redis: RedisClient,
    private readonly namespace: string,
    private readonly partners: ServiceClient<typeof partnersV1.PartnersService.method>,
    private readonly now: () => number = Date.now,
  ) {}

  // `{prefix}` is a Redis Cluster hash tag: a key's entry and its fence share a
  // slot, as the fill script (which reads one and writes the other) requires.
  private key(prefix: string): string {
    return `${this.namespace}:gateway:credential:{${prefix}}`;
  }

  private fence(prefix: string): string {
    return `${this.namespace}:gateway:credential-evicted:{${prefix}}`;
  }

  /** The credential for a key prefix, or null when no key has it. */
  async get(prefix: string): Promise<Credential | null> {
    const cached = await this.redis.get(this.key(prefix)).catch(redisUnavailable);
    let stale: Credential | undefined;
    if (cached === 'unknown') return null;
    if (cached) {
      const { cachedAtMs, ...credential } = JSON.parse(cached) as Credential & { cachedAtMs?: number };
      // Cached before test mode existed (a rolling deploy): every such key is live.
      credential.livemode ??= true;
      if (cachedAtMs !== undefined && this.now() - cachedAtMs < revalidateAfterMs) return credential;
      stale = credential;
    }
    let credential: Credential | null;
    try {
      credential = credentialOf(await this.partners.lookupApiKey({ prefix }));
    } catch (error) {
      if (stale && error instanceof AppError && error.code === 'UNAVAILABLE') return stale;
      if (!(error instanceof AppError) || error.code !== 'NOT_FOUND') throw error;
      credential = null;
    }
    await this.redis
      .eval(
        fillScript,
        2,
        this.key(prefix),
        this.fence(prefix),
        credential ? JSON.stringify({ ...credential, cachedAtMs: this.now() }) : 'unknown',
        credential ? ttlSeconds : unknownTtlSeconds,
      )
      .catch(redisUnavailable);
    return credential;
  }

  async evict(prefixes: string[]): Promise<void> {
    if (prefixes.length === 0) return;
    // One transaction per prefix: on Redis Cluster a MULTI may only touch one slot.
    await Promise.all(prefixes.map((prefix) => this.redis.multi().set(this.fence(prefix), '1', 'PX', evictionFenceMs).del(this.key(prefix)).exec()));
  }
}
