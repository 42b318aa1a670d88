import { randomBytes } from 'node:crypto';
import type { GenService, GenServiceMethods } from '@bufbuild/protobuf/codegenv2';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connectNats, ensureStreams, events, laneOf, laneSubject, namespace, type EventData, type EventEnvelope, type EventType, type Namespace, type NatsConnection, type StreamName } from '@esim/events';
import { createClient, devTlsFiles, testHarnessIdentity, type ServiceClient } from '@esim/grpc';
import { newId } from '@esim/ids';
import { createPool, ensureDatabase, type Pool } from '@esim/postgres';
import { startService, type BaseConfig, type RunningService, type ServiceDefinition } from '@esim/service';
import { createLogger, type Logger } from '@esim/telemetry';
import { dropDatabase, postgresUrl } from './database.js';

/** The local NATS JetStream server every test talks to. */
export const natsUrl = 'nats://127.0.0.1:4222';

/** A service started in-process and a gRPC client to it. */
export interface ServedService<C extends BaseConfig, M extends GenServiceMethods> {
  app: RunningService<C>;
  client: ServiceClient<M>;
}

export interface PublishOptions {
  /** The event id (default a new `evt_` id). */
  id?: string;
  /** Nats-Msg-Id (default the event id): the same id under a new msgId is a redelivery JetStream cannot drop. */
  msgId?: string;
  occurredAt?: string;
}

/**
 * Real infrastructure for one test file: a fresh Postgres database and a
 * fresh NATS namespace, plus whatever the test started on them. `cleanup`
 * stops all of it and removes the database and every stream of the
 * namespace, so test files never see each other's data.
 */
export interface TestInfra {
  databaseUrl: string;
  /** The PLATFORM_NAMESPACE value. */
  namespace: string;
  ns: Namespace;
  /** A pool on the test database, for assertions and for writes behind a service's back. */
  pool: Pool;
  /** The variables a service of this file runs with (free ports), `extra` on top. */
  env(extra?: Record<string, string>): Record<string, string>;
  /** Starts a service in-process on this database and namespace; stopped by `cleanup`. */
  start<C extends BaseConfig>(definition: ServiceDefinition<C>, env?: Record<string, string>, logger?: Logger): Promise<RunningService<C>>;
  /** `start`, then a gRPC client to it (`service` is the generated gRPC service it serves). */
  serve<C extends BaseConfig, M extends GenServiceMethods>(definition: ServiceDefinition<C>, service: GenService<M>, env?: Record<string, string>, logger?: Logger): Promise<ServedService<C, M>>;
  /** A gRPC client to a started service; closed by `cleanup`. */
  client<M extends GenServiceMethods>(service: GenService<M>, running: { name: string; ports: { grpc?: number } }): ServiceClient<M>;
  /** Runs `stop` at cleanup, in reverse order with the services and clients (fakes a service calls go after it). */
  defer(stop: () => unknown): void;
  query<T extends object>(sql: string, params?: unknown[]): Promise<T[]>;
  /** This file's NATS connection, opened on first use; closed by `cleanup`. */
  nats(): Promise<NatsConnection>;
  /** Publishes an event envelope straight to JetStream, as another service's outbox relay would. */
  publish<T extends EventType>(type: T, data: EventData<T>, options?: PublishOptions): Promise<EventEnvelope<T>>;
  cleanup(): Promise<void>;
}

/** `label` (a service name) names the database `esim_<label>_test_<random>` and the namespace. */
export async function createTestInfra(label: string, options: { poolSize?: number } = {}): Promise<TestInfra> {
  const slug = label.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (!/^[a-z]/.test(slug)) throw new Error(`test label ${JSON.stringify(label)} must start with a letter`);
  const suffix = randomBytes(6).toString('hex');
  const database = `esim_${slug}_test_${suffix}`;
  const databaseUrl = `${postgresUrl}/${database}`;
  // PLATFORM_NAMESPACE allows 31 characters: 14 + "test_" + 12.
  const nsName = `${slug.slice(0, 14)}test_${suffix}`;
  const ns = namespace(nsName);
  await ensureDatabase(databaseUrl);
  const pool = createPool(databaseUrl, { applicationName: `${label}-test`, max: options.poolSize ?? 4 });
  const stops: (() => unknown)[] = [];
  const ensured = new Set<StreamName>();
  let connection: Promise<NatsConnection> | undefined;
  const nats = () => (connection ??= connectNats(natsUrl, `${label}-test`));

  const env = (extra: Record<string, string> = {}) => ({
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl,
    NATS_URL: natsUrl,
    PLATFORM_NAMESPACE: nsName,
    GRPC_PORT: '0',
    HEALTH_PORT: '0',
    ...extra,
  });

  const start = async <C extends BaseConfig>(definition: ServiceDefinition<C>, extra: Record<string, string> = {}, logger?: Logger) => {
    const running = await startService(definition, { env: env(extra), logger: logger ?? createLogger(definition.name, 'silent') });
    stops.push(() => running.close());
    return running;
  };
  const client = <M extends GenServiceMethods>(service: GenService<M>, running: { name: string; ports: { grpc?: number } }) => {
    if (running.ports.grpc === undefined) throw new Error(`${running.name} serves no gRPC`);
    // The harness's own identity, which servers honour for every method under NODE_ENV=test only.
    const opened = createClient(service, `127.0.0.1:${running.ports.grpc}`, { tls: devTlsFiles(testHarnessIdentity), server: running.name });
    stops.push(() => opened.close());
    return opened;
  };

  return {
    databaseUrl,
    namespace: nsName,
    ns,
    pool,
    env,
    start,
    client,
    async serve(definition, service, extra, logger) {
      const app = await start(definition, extra, logger);
      return { app, client: client(service, app) };
    },
    defer(stop) {
      stops.push(stop);
    },
    async query<T extends object>(sql: string, params: unknown[] = []) {
      return (await pool.query(sql, params)).rows as T[];
    },
    nats,
    async publish(type, data, publishOptions = {}) {
      const nc = await nats();
      // The stream may not exist yet when no consumer of it has started.
      const stream = events[type].stream as StreamName;
      if (!ensured.has(stream)) {
        await ensureStreams(nc, ns, [stream]);
        ensured.add(stream);
      }
      const envelope = { id: publishOptions.id ?? newId('evt'), type, occurredAt: publishOptions.occurredAt ?? new Date().toISOString(), data };
      // On the lane its account picks, as the owner's outbox relay publishes it.
      const subject = laneSubject(type, laneOf(type, data as EventData<typeof type>));
      await jetstream(nc).publish(ns.subject(subject), JSON.stringify(envelope), { msgID: publishOptions.msgId ?? envelope.id, timeout: 5_000 });
      return envelope;
    },
    async cleanup() {
      // Every step runs even when one fails, so a broken test never leaves a database or streams behind.
      const failures: unknown[] = [];
      const attempt = async (step: () => unknown) => {
        try {
          await step();
        } catch (error) {
          failures.push(error);
        }
      };
      for (const stop of stops.splice(0).reverse()) await attempt(stop);
      await attempt(() => pool.end());
      await attempt(() => dropDatabase(database));
      await attempt(async () => {
        const nc = await nats();
        const manager = await jetstreamManager(nc);
        for await (const stream of manager.streams.list()) {
          if (stream.config.name.startsWith(ns.stream(''))) await manager.streams.delete(stream.config.name);
        }
      });
      await attempt(async () => (await connection)?.close());
      if (failures.length === 1) throw failures[0];
      if (failures.length > 1) throw new AggregateError(failures, `cleanup of ${label}'s test infrastructure failed ${failures.length} times`);
    },
  };
}
