import { onEveryReplica, type Namespace, type NatsConnection } from '@esim/events';
import type { Logger } from '@esim/telemetry';
import type { RenderedResponses } from './renderedResponses.js';

/**
 * Drops this replica's rendered catalog pages whenever a plan changes
 * (`catalog.plan.changed`, a core NATS subscription so that every replica
 * hears every change, as the catalog's own replicas do), and after a NATS
 * reconnect, when a change may have been missed. The version in Redis
 * (CatalogVersion) already covers changes made through this platform's admin
 * API; this covers the catalog replicas that reload a moment later.
 */
export function startCatalogChanges(options: { nc: NatsConnection; ns: Namespace; responses: RenderedResponses; logger: Logger }): { stop(): void } {
  const { nc, ns, responses, logger } = options;
  return onEveryReplica({ nc, ns, type: 'catalog.plan.changed', logger, handle: () => responses.changed(), reset: () => responses.changed() });
}
