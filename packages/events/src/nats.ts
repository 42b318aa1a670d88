import { connect } from '@nats-io/transport-node';
import { jetstreamManager, RetentionPolicy, StorageType, type JetStreamManager } from '@nats-io/jetstream';
import { nanos, type NatsConnection } from '@nats-io/nats-core';
import { streams, type StreamName } from './contracts.js';
import type { Namespace } from './namespace.js';

export type { NatsConnection } from '@nats-io/nats-core';

/** Reconnects forever: a NATS restart must not take a service down with it. */
export function connectNats(url: string, name: string): Promise<NatsConnection> {
  return connect({ servers: url, name, maxReconnectAttempts: -1, reconnectTimeWait: 1_000, timeout: 5_000 });
}

const duplicateWindowMs = 2 * 60_000;

/** Creates or updates the namespaced streams a service publishes to or reads from. */
export async function ensureStreams(nc: NatsConnection, ns: Namespace, names: StreamName[]): Promise<JetStreamManager> {
  const jsm = await jetstreamManager(nc);
  for (const name of names) {
    const spec = streams[name];
    const config = {
      name: ns.stream(name),
      subjects: spec.subjects.map((s) => ns.subject(s)),
      storage: StorageType.File,
      retention: spec.retention === 'workqueue' ? RetentionPolicy.Workqueue : RetentionPolicy.Limits,
      max_age: nanos(spec.maxAgeMs),
      duplicate_window: nanos(duplicateWindowMs),
    };
    try {
      await jsm.streams.info(config.name);
      await jsm.streams.update(config.name, { subjects: config.subjects, max_age: config.max_age, duplicate_window: config.duplicate_window });
    } catch (error) {
      if (!/not found/i.test(String((error as Error).message))) throw error;
      await jsm.streams.add(config).catch(async (addError: Error) => {
        // Another replica created it between our info and add.
        if (!/already in use|exists/i.test(addError.message)) throw addError;
      });
    }
  }
  return jsm;
}
