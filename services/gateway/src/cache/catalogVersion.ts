import type { RedisClient } from '../redis.js';
import type { Logger } from '@esim/telemetry';
import type { CatalogClient } from '../backends.js';
import type { RenderedResponses } from './renderedResponses.js';

/**
 * A number every gateway replica reads with each catalog request, and that
 * the replica which forwarded a plan write increases before it answers the
 * operator. Rendered catalog pages are kept per version, so the very next
 * catalog call on any replica, after a plan change has been answered, renders
 * afresh (§5: a deactivated plan is gone on the next call) without waiting
 * for the change event. One key, so it lives in one Redis Cluster slot.
 */
export class CatalogVersion {
  private readonly key: string;

  constructor(
    private readonly redis: RedisClient,
    namespace: string,
  ) {
    this.key = `${namespace}:gateway:catalog-version`;
  }

  /** The current version ('0' before the first plan change). */
  async read(): Promise<number> {
    return Number((await this.redis.get(this.key)) ?? 0);
  }

  async bump(): Promise<void> {
    await this.redis.incr(this.key);
  }
}

/**
 * The catalog client for the admin plan routes: after every plan write
 * (created, changed, deactivated), whether it answered or failed (a failure
 * may come after the commit), the version goes up and this replica forgets
 * its pages, before the operator hears back. A version that cannot be raised
 * (Redis down) is logged: the write stands, the change event and the pages'
 * short life catch up, and partner catalog calls fail with 503 meanwhile.
 */
export function announcingPlanWrites(catalog: CatalogClient, announce: { version: CatalogVersion; responses: RenderedResponses; logger: Logger }): CatalogClient {
  const after = async () => {
    announce.responses.changed();
    await announce.version.bump().catch((error: unknown) => announce.logger.warn({ err: error }, 'could not raise the catalog version after a plan write'));
  };
  const announced =
    <A extends unknown[], R>(write: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await write(...args);
      } finally {
        await after();
      }
    };
  return { ...catalog, createPlan: announced(catalog.createPlan), updatePlan: announced(catalog.updatePlan) };
}
