import type { DescMessage } from '@bufbuild/protobuf';
import type { GenService, GenServiceMethods } from '@bufbuild/protobuf/codegenv2';
import type { ConsumerSpec, EventEnvelope, EventType, Namespace, NatsConnection, StreamName } from '@esim/events';
import type { ServiceHandlers, TlsFiles } from '@esim/grpc';
import type { Pool, PoolClient } from '@esim/postgres';
import type { ReadinessCheck } from '@esim/runtime';
import type { Logger } from '@esim/telemetry';
import type { BaseConfig } from './env.js';

/** Something the service started that must be stopped on shutdown (a loop, a subscription, a client). */
export interface Stoppable {
  stop(): Promise<unknown> | unknown;
}

/** One gRPC service implementation to serve. */
export interface GrpcBinding<M extends GenServiceMethods = GenServiceMethods> {
  service: GenService<M>;
  handlers: ServiceHandlers<M>;
}

/** Binds a generated service to its handlers, keeping the two types tied together. */
export function grpcBinding<M extends GenServiceMethods>(service: GenService<M>, handlers: ServiceHandlers<M>): GrpcBinding {
  return { service, handlers } as unknown as GrpcBinding;
}

/** An HTTP listener a service serves besides its health port (the gateway's APIs, the supplier simulator). */
export interface HttpListener {
  name: string;
  /** Binds and resolves with the port actually used (0 picks a free one). */
  listen(): Promise<number>;
  /** Stops accepting connections and lets in-flight requests finish. */
  close(): Promise<void>;
}

/**
 * What a service's `start` receives: its parsed config and the connections
 * the bootstrap opened. Everything started through it (`consume`, `own`) is
 * stopped by the bootstrap, in order, on shutdown.
 */
export interface ServiceContext<C extends BaseConfig> {
  name: string;
  config: C;
  logger: Logger;
  /** The service's Postgres pool (its own schema); absent when the definition has no `postgres`. */
  pool: Pool;
  schema: string;
  nc: NatsConnection;
  ns: Namespace;
  /**
   * Starts a durable consumer. With `exactlyOnce` (the default when the
   * service has a database) the handler runs in a transaction that also
   * records the event id, so a redelivery is skipped.
   */
  consume<T extends EventType>(spec: ConsumerSpec<T>, handle: (event: EventEnvelope<T>, db: PoolClient) => Promise<void>): Promise<void>;
  consume<T extends EventType>(spec: ConsumerSpec<T> & { exactlyOnce: false }, handle: (event: EventEnvelope<T>) => Promise<void>): Promise<void>;
  /** Registers something to stop after the consumers and before NATS and Postgres close. */
  own(name: string, thing: Stoppable): void;
  /** This service's gRPC identity (mutual TLS): hand it to every `createClient` (`{ tls: grpcTls() }`). */
  grpcTls(): TlsFiles;
}

/** What `start` hands back: the transports to serve and any extra readiness checks. */
export interface Started {
  grpc?: GrpcBinding[];
  http?: HttpListener[];
  readiness?: ReadinessCheck[];
  /** For a service that serves its own /readyz (the gateway): called first on shutdown. */
  markShuttingDown?(): void;
  /** Logged with the "ready" line (plan counts, transport kind…). */
  facts?: Record<string, unknown>;
}

export interface ServiceDefinition<C extends BaseConfig> {
  /** The folder name under services/; it names logs, spans and metrics. */
  name: string;
  /** Parses the environment; a bad value throws a ConfigError naming the variable. */
  config: (env: NodeJS.ProcessEnv) => C;
  /** The service owns this Postgres schema: its migrations (`migrations/` beside `src/`) and the event tables run at start. */
  postgres?: { schema: string; migrationsDir: string; poolSize?: number };
  /** JetStream streams the service publishes to (an outbox relay runs when it also has a schema). */
  publishes?: StreamName[];
  /** Without NATS (the supplier simulator), no connection is opened. Default true. */
  nats?: boolean;
  start(context: ServiceContext<C>): Promise<Started>;
}

export function defineService<C extends BaseConfig>(definition: ServiceDefinition<C>): ServiceDefinition<C> {
  return definition;
}

export type { DescMessage };
