import { onEveryReplica, type Namespace, type NatsConnection } from '@esim/events';
import type { Logger } from '@esim/telemetry';
import type { EndpointCache } from './endpointCache.js';

/**
 * Every replica drops a partner's cached endpoint as soon as the partners
 * service publishes `partners.webhook_endpoint.changed` (a rotated secret, a
 * changed URL); anything missed (a reconnect, an unreadable event) clears the
 * cache, and the cache's TTL bounds the rest.
 */
export function startEndpointChanges(options: { nc: NatsConnection; ns: Namespace; cache: EndpointCache; logger: Logger }): { stop(): void } {
  const { nc, ns, cache, logger } = options;
  return onEveryReplica({ nc, ns, type: 'partners.webhook_endpoint.changed', logger, handle: ({ partnerId }) => cache.evict(partnerId), reset: () => cache.clear() });
}
