import { events, type EventEnvelope, type Namespace, type NatsConnection } from '@esim/events';
import type { Logger } from '@esim/telemetry';
import type { EndpointCache } from './endpointCache.js';

/**
 * Every replica drops a partner's cached endpoint as soon as the partners
 * service publishes `partners.webhook_endpoint.changed` (a rotated secret, a
 * changed URL). A plain core NATS subscription, as the gateway's credential
 * evictions: JetStream publishes reach core subscribers, and every replica
 * must see every change, which a durable consumer would hand to one. A
 * message missed while disconnected is covered by clearing the cache on
 * reconnect, and by the cache's TTL.
 */
export function startEndpointChanges(options: { nc: NatsConnection; ns: Namespace; cache: EndpointCache; logger: Logger }): { stop(): void } {
  const { nc, ns, cache, logger } = options;
  const type = 'partners.webhook_endpoint.changed';
  const subscription = nc.subscribe(ns.subject(type), {
    callback: (error, message) => {
      if (error) return logger.warn({ err: error }, 'webhook endpoint change subscription failed');
      try {
        const envelope = message.json<EventEnvelope<typeof type>>();
        cache.evict(events[type].data.parse(envelope.data).partnerId);
      } catch (parseError) {
        // Unreadable: forget every endpoint rather than keep one that may have changed.
        logger.warn({ err: parseError }, 'unreadable webhook endpoint change; clearing the endpoint cache');
        cache.clear();
      }
    },
  });
  void (async () => {
    for await (const status of nc.status()) if (status.type === 'reconnect') cache.clear();
  })().catch(() => {});
  return { stop: () => subscription.unsubscribe() };
}
