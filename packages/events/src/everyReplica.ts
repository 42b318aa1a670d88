import type { NatsConnection } from '@nats-io/nats-core';
import type { Logger } from '@esim/telemetry';
import { events, type EventData, type EventEnvelope, type EventType } from './contracts.js';
import type { Namespace } from './namespace.js';

/**
 * Every replica hears every event of `type`, for caches each replica keeps
 * (a credential, a webhook endpoint, a plan price): a plain core NATS
 * subscription, since JetStream publishes reach core subscribers and a
 * durable consumer would hand each event to one replica only. `handle` gets
 * the event's data, checked against its contract. Whatever may have been
 * missed calls `reset` instead: an unreadable event, a failed subscription,
 * a reconnect; a cache then forgets everything rather than keep an entry
 * that may have changed.
 */
export function onEveryReplica<T extends EventType>(options: {
  nc: NatsConnection;
  ns: Namespace;
  type: T;
  logger: Logger;
  handle: (data: EventData<T>) => void;
  reset: () => void;
}): { stop(): void } {
  const { nc, ns, type, logger, handle, reset } = options;
  const subscription = nc.subscribe(ns.subject(type), {
    callback: (error, message) => {
      if (error) {
        logger.warn({ err: error, type }, 'change subscription failed; resetting');
        return reset();
      }
      let data: EventData<T>;
      try {
        data = events[type].data.parse(message.json<EventEnvelope<T>>().data) as EventData<T>;
      } catch (parseError) {
        logger.warn({ err: parseError, type }, 'unreadable change event; resetting');
        return reset();
      }
      handle(data);
    },
  });
  void (async () => {
    for await (const status of nc.status()) if (status.type === 'reconnect') reset();
  })().catch(() => {});
  return { stop: () => subscription.unsubscribe() };
}
