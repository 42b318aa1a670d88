import type { Namespace, NatsConnection } from '@esim/events';
import type { Logger } from '@esim/telemetry';
import type { PlanCache } from '../domain/planCache.js';

export interface CacheRefresher {
  stop(): void;
}

/**
 * Keeps this replica's plans current with other replicas' writes. A plain
 * core NATS subscription, not a durable consumer: JetStream publishes reach
 * core subscribers too, and every replica must see every change (a durable
 * consumer would hand each change to one replica only). A change published
 * while we were disconnected is lost to a core subscription, hence a reload
 * on reconnect and a periodic one as the last safety net.
 */
export function startCacheRefresher(options: { cache: PlanCache; nc: NatsConnection; ns: Namespace; logger: Logger; intervalMs: number }): CacheRefresher {
  const { cache, nc, ns, logger } = options;
  const reload = (reason: string) =>
    cache.reload().then(
      () => logger.debug({ reason, plans: cache.size() }, 'plans reloaded'),
      (error: unknown) => logger.warn({ err: error, reason }, 'plan reload failed; serving the previous plans'),
    );

  // The event's content does not matter: any change means "read the catalog again".
  const subscription = nc.subscribe(ns.subject('catalog.plan.changed'), { callback: () => void reload('plan changed') });
  const timer = setInterval(() => void reload('periodic'), options.intervalMs);
  timer.unref();
  void (async () => {
    for await (const status of nc.status()) if (status.type === 'reconnect') void reload('nats reconnected');
  })().catch(() => {});

  return {
    stop() {
      clearInterval(timer);
      subscription.unsubscribe();
    },
  };
}
