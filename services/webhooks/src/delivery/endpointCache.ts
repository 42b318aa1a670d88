import type { WebhookEndpoint } from '../domain/attemptDelivery.js';

export interface EndpointCache {
  /** The partner's endpoint, from memory when fetched less than the TTL ago and not dropped since. */
  get(partnerId: string): Promise<WebhookEndpoint>;
  /** Forgets the partner's endpoint; a lookup under way when this is called is not kept either. */
  evict(partnerId: string): void;
  clear(): void;
}

/**
 * The partners service's answer to "where, and signed with what", kept per
 * partner: every attempt asked it before (issue #14: ~18 ms of partners CPU
 * per order). What is kept is what crossed gRPC, the secret sealed under the
 * data key; it is opened per attempt, so no secret rests here in clear.
 * Dropped when `partners.webhook_endpoint.changed` arrives (see
 * startEndpointChanges) and at the TTL, the backstop for a missed event.
 * Concurrent attempts for one partner share one lookup. Failures are not
 * kept. A lookup that started before an eviction of its partner is answered
 * to its caller but not stored, so a rotation racing a lookup cannot pin the
 * old secret for a TTL.
 */
export function endpointCache(
  lookup: (partnerId: string) => Promise<WebhookEndpoint>,
  options: { ttlMs: number; maxEntries?: number; now?: () => number },
): EndpointCache {
  const now = options.now ?? Date.now;
  const maxEntries = options.maxEntries ?? 10_000;
  const kept = new Map<string, { endpoint: WebhookEndpoint; at: number }>();
  const inFlight = new Map<string, Promise<WebhookEndpoint>>();
  // Bumped by every eviction: a lookup stores its answer only if its partner's generation is unchanged.
  const generations = new Map<string, number>();
  let epoch = 0;
  const generationOf = (partnerId: string) => `${epoch}:${generations.get(partnerId) ?? 0}`;

  return {
    get(partnerId) {
      const hit = kept.get(partnerId);
      if (hit && now() - hit.at < options.ttlMs) return Promise.resolve(hit.endpoint);
      const pending = inFlight.get(partnerId);
      if (pending) return pending;
      const generation = generationOf(partnerId);
      const started = now();
      const fetching = lookup(partnerId)
        .then((endpoint) => {
          if (options.ttlMs > 0 && generationOf(partnerId) === generation) {
            if (kept.size >= maxEntries && !kept.has(partnerId)) kept.delete(kept.keys().next().value!);
            kept.set(partnerId, { endpoint, at: started });
          }
          return endpoint;
        })
        .finally(() => {
          if (inFlight.get(partnerId) === fetching) inFlight.delete(partnerId);
        });
      inFlight.set(partnerId, fetching);
      return fetching;
    },
    evict(partnerId) {
      kept.delete(partnerId);
      inFlight.delete(partnerId);
      generations.set(partnerId, (generations.get(partnerId) ?? 0) + 1);
    },
    clear() {
      kept.clear();
      inFlight.clear();
      generations.clear();
      epoch += 1;
    },
  };
}
