import { onEveryReplica, type Namespace, type NatsConnection } from '@esim/events';
import type { Logger } from '@esim/telemetry';
import type { CredentialCache } from './credentialCache.js';
import type { LocalCredentials } from './localCredentials.js';

export interface CredentialEvictions {
  stop(): void;
}

/**
 * Every replica drops a changed key (revoked, its partner suspended or
 * re-tiered) from its own memory as soon as `partners.credentials.changed`
 * is published. A plain core NATS subscription, not a durable consumer:
 * JetStream publishes reach core subscribers too, and every replica must see
 * every change (the durable `gateway_credentials` consumer hands each event
 * to one replica, which clears Redis for all). Each replica clears Redis as
 * well before forgetting its own copy (idempotent), so it cannot reload the
 * old credential from Redis in between. A message missed while disconnected
 * is covered by clearing everything on reconnect and by the local TTL.
 */
export function startCredentialEvictions(options: {
  nc: NatsConnection;
  ns: Namespace;
  shared: Pick<CredentialCache, 'evict'>;
  local: LocalCredentials;
  logger: Logger;
}): CredentialEvictions {
  const { nc, ns, shared, local, logger } = options;
  const type = 'partners.credentials.changed' as const;
  const evict = async (prefixes: string[]) => {
    local.evict(prefixes);
    try {
      await shared.evict(prefixes);
    } catch (error) {
      // The durable consumer retries the shared eviction; this replica still forgets its copy below.
      logger.warn({ err: error }, 'could not evict changed credentials from Redis');
    }
    local.evict(prefixes);
  };
  return onEveryReplica({ nc, ns, type, logger, handle: ({ prefixes }) => void evict(prefixes), reset: () => local.clear() });
}
