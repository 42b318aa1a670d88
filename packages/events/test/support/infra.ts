import { jetstreamManager } from '@nats-io/jetstream';
import { migrateEventTables, type Namespace, type NatsConnection } from '@esim/events';
import type { Pool } from '@esim/postgres';
import { createTestInfra as createServiceTestInfra } from '@esim/testing';

export { natsUrl } from '@esim/testing';

/**
 * Real Postgres and NATS for one test file: a fresh database (with a schema
 * holding the event tables) and a fresh NATS namespace, both removed by
 * `cleanup`. Shared by the tests of the packages under packages/; built on
 * @esim/testing, the services' harness.
 */
export interface TestInfra {
  databaseUrl: string;
  /** A schema with the outbox and processed_events tables already migrated. */
  schema: string;
  pool: Pool;
  namespace: string;
  ns: Namespace;
  nc: NatsConnection;
  /** The number of messages in a stream of this namespace. */
  streamMessages(stream: string): Promise<number>;
  cleanup(): Promise<void>;
}

export async function createTestInfra(label: string, schema = 'app'): Promise<TestInfra> {
  const infra = await createServiceTestInfra(label, { poolSize: 5 });
  await migrateEventTables(infra.databaseUrl, schema);
  const nc = await infra.nats();
  const jsm = await jetstreamManager(nc);
  return {
    databaseUrl: infra.databaseUrl,
    schema,
    pool: infra.pool,
    namespace: infra.namespace,
    ns: infra.ns,
    nc,
    streamMessages: async (stream) => (await jsm.streams.info(infra.ns.stream(stream))).state.messages,
    cleanup: infra.cleanup,
  };
}

/** Polls `probe` every 25 ms until it returns a value other than undefined; fails naming `what` after `timeoutMs`. */
export async function until<T>(probe: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
