import { connectNats, consumedLanes, ensureStreams, eventTablesRetention, exactlyOnce, exactlyOnceBatch, laneDurable, namespace, servedLanes, startConsumer, startOutboxRelay, type NatsConnection } from '@esim/events';
import { addService, platformAccess, startGrpcServer, testHarnessIdentity, type GrpcServer, type TlsFiles } from '@esim/grpc';
import { createPool, type Pool } from '@esim/postgres';
import { startHealthServer, type ReadinessCheck, type ShutdownStep } from '@esim/runtime';
import { createLogger, type Logger } from '@esim/telemetry';
import { abortable, BootAborted, prepareSchema } from './boot.js';
import type { ServiceContext, ServiceDefinition, Started, Stoppable } from './define.js';
import type { BaseConfig } from './env.js';
import { startRetention } from './retention.js';
import { grpcTlsFiles } from './tls.js';

/** How often every schema's event tables are pruned: each run deletes up to 500,000 rows of each, far more than ten minutes of traffic leave. */
const eventTablesRetentionEveryMs = 600_000;

export interface RunningService<C extends BaseConfig> {
  name: string;
  config: C;
  /** Ports actually bound (0 in the config picks a free one). */
  ports: { health: number; grpc?: number; http: Record<string, number> };
  facts: Record<string, unknown>;
  /** `migrated`: MIGRATE=only applied the migrations and started nothing; the process should exit 0. */
  mode: 'serving' | 'migrated';
  /** In order: readiness off, transports, consumers, owned loops, outbox relay, NATS, Postgres, health. */
  shutdownSteps: ShutdownStep[];
  /** Runs the shutdown steps (tests start and stop services in-process). */
  close(): Promise<void>;
}

const notConnected = new Proxy({}, {
  get(_, property) {
    throw new Error(`this service was defined without it (tried to use .${String(property)})`);
  },
});

/**
 * Starts a service in this process: config, logger, migrations (by MIGRATE),
 * Postgres, NATS and streams, the service's own wiring, its gRPC and HTTP
 * listeners, the outbox relay and the health server. Any failure stops what
 * already started and rethrows, so a half-booted process never lingers; so
 * does `signal` aborting (SIGTERM during boot), with BootAborted.
 */
export async function startService<C extends BaseConfig>(
  definition: ServiceDefinition<C>,
  options: { env?: NodeJS.ProcessEnv; logger?: Logger; signal?: AbortSignal } = {},
): Promise<RunningService<C>> {
  const config = definition.config(options.env ?? process.env);
  const logger = options.logger ?? createLogger(definition.name, config.LOG_LEVEL);
  const { signal } = options;
  const checkpoint = () => {
    if (signal?.aborted) throw signal.reason instanceof BootAborted ? signal.reason : new BootAborted();
  };
  const onInternalError = (error: unknown, method: string) => logger.error({ err: error, method }, 'unexpected error in RPC');
  let tls: TlsFiles | undefined;
  const grpcTls = () => (tls ??= grpcTlsFiles(config, definition.name));

  // Each phase's stop steps, run in this order whatever was started.
  const transports: ShutdownStep[] = [];
  const consumers: ShutdownStep[] = [];
  const owned: ShutdownStep[] = [];
  const connections: ShutdownStep[] = [];
  let healthStep: ShutdownStep | undefined;
  let readinessOff: ShutdownStep | undefined;
  const steps = () => [...(readinessOff ? [readinessOff] : []), ...transports, ...consumers, ...owned, ...connections, ...(healthStep ? [healthStep] : [])];
  let closed = false;
  const close = async () => {
    closed = true;
    for (const step of steps()) {
      try {
        await step.run();
      } catch (error) {
        logger.error({ err: error, step: step.name }, 'shutdown step failed');
      }
    }
  };
  // Something that finishes starting after an aborted boot was closed is stopped at once.
  const register = (phase: ShutdownStep[], step: ShutdownStep) => {
    if (closed) void Promise.resolve().then(step.run).catch(() => undefined);
    else phase.push(step);
  };

  try {
    const pg = definition.postgres;
    const mode = config.MIGRATE ?? 'on-start';
    let pool = notConnected as Pool;
    if (pg) {
      if (!config.DATABASE_URL) throw new Error(`${definition.name}: DATABASE_URL is required`);
      await prepareSchema({
        mode,
        connectionString: config.DATABASE_URL,
        schema: pg.schema,
        migrationsDir: pg.migrationsDir,
        logger,
        signal,
        serviceUrl: config.SERVICE_DATABASE_URL,
      });
    }
    if (mode === 'only') {
      return { name: definition.name, config, ports: { health: 0, http: {} }, facts: {}, mode: 'migrated', shutdownSteps: [], close: async () => {} };
    }
    checkpoint();
    // A test-mode replica's sessions say so in pg_stat_activity (`wallet-test`), so an operator can tell whose load is whose.
    const testOnly = config.EVENT_LANES?.length === 1 && config.EVENT_LANES[0] === 'test';
    if (pg) pool = createPool(config.DATABASE_URL!, { applicationName: testOnly ? `${definition.name}-test` : definition.name, max: config.DATABASE_POOL_MAX ?? pg.poolSize });
    const ns = namespace(config.PLATFORM_NAMESPACE);
    let nc = notConnected as NatsConnection;
    if (definition.nats !== false) {
      if (!config.NATS_URL) throw new Error(`${definition.name}: NATS_URL is required`);
      const security = { credsFile: config.NATS_CREDS, tls: { caFile: config.NATS_TLS_CA, certFile: config.NATS_TLS_CERT, keyFile: config.NATS_TLS_KEY } };
      const connected = await abortable(connectNats(config.NATS_URL, definition.name, security), signal, (late) => late.close());
      nc = connected;
      connections.push({ name: 'nats', run: () => connected.drain() });
      await abortable(ensureStreams(nc, ns, definition.publishes ?? [], { replicas: config.NATS_STREAM_REPLICAS }), signal);
    }
    if (pg) connections.push({ name: 'postgres', run: () => pool.end() });

    const context: ServiceContext<C> = {
      name: definition.name,
      config,
      logger,
      pool,
      schema: pg?.schema ?? '',
      nc,
      ns,
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the overloads on ServiceContext type the callers
      async consume(spec: Parameters<ServiceContext<C>['consume']>[0], handle: (event: any, db: any) => Promise<void>) {
        const once = pg && (spec as { exactlyOnce?: boolean }).exactlyOnce !== false;
        // One durable per lane this process serves (EVENT_LANES). The exactly-once record is keyed by the declared
        // durable in every lane, so an event is applied once whichever lane's durable delivers it.
        for (const lane of consumedLanes(spec.type, servedLanes(config.EVENT_LANES))) {
          const running = await startConsumer({
            nc,
            ns,
            logger,
            spec: { ...spec, lane },
            handle: once ? exactlyOnce(pool, pg.schema, spec.durable, handle) : (event) => handle(event as never, undefined as never),
            // A batch runs the same handler for each event, all in one exactly-once transaction.
            ...(once && (spec.batch ?? 1) > 1 ? { applyBatch: exactlyOnceBatch(pool, pg.schema, spec.durable, handle) } : {}),
            streamReplicas: config.NATS_STREAM_REPLICAS,
          });
          register(consumers, { name: `consumer ${laneDurable(spec.durable, lane)}`, run: () => running.stop() });
        }
      },
      own(name: string, thing: Stoppable) {
        register(owned, { name, run: () => thing.stop() });
      },
      grpcTls,
    } as ServiceContext<C>;

    const started: Started = await abortable(definition.start(context), signal);
    checkpoint();
    if (started.markShuttingDown) readinessOff = { name: 'readiness', run: () => started.markShuttingDown?.() };

    let grpc: GrpcServer | undefined;
    if (started.grpc?.length) {
      if (config.GRPC_PORT === undefined) throw new Error(`${definition.name}: serves gRPC but its config has no GRPC_PORT`);
      // Only the test harness's own identity may call anything, and only under NODE_ENV=test.
      const access = platformAccess({ unrestricted: config.NODE_ENV === 'test' ? [testHarnessIdentity] : [] });
      grpc = await startGrpcServer({
        port: config.GRPC_PORT,
        tls: grpcTls(),
        register: (server) => {
          for (const binding of started.grpc ?? []) addService(server, binding.service, binding.handlers, onInternalError, access);
        },
      });
      const server = grpc;
      transports.push({ name: 'grpc', run: () => server.stop() });
    }
    const httpPorts: Record<string, number> = {};
    for (const listener of started.http ?? []) {
      checkpoint();
      httpPorts[listener.name] = await listener.listen();
      transports.push({ name: `http ${listener.name}`, run: () => listener.close() });
    }
    checkpoint();
    if (pg && definition.publishes?.length) {
      const relay = startOutboxRelay({ pool, schema: pg.schema, nc, ns, logger, lanes: config.EVENT_LANES });
      owned.push({ name: 'outbox relay', run: () => relay.stop() });
    }
    if (pg) {
      // Contract §11: published outbox rows go after a day, consumers' records after 35 days (docs/retention.md).
      const retention = startRetention({ pool, logger, rules: eventTablesRetention(pg.schema), everyMs: eventTablesRetentionEveryMs });
      owned.push({ name: 'event tables retention', run: () => retention.stop() });
    }

    const checks: ReadinessCheck[] = [
      ...(pg ? [{ name: 'postgres', check: () => pool.query('SELECT 1') }] : []),
      ...(definition.nats !== false ? [{ name: 'nats', check: () => nc.flush() }] : []),
      ...(started.readiness ?? []),
    ];
    let healthPort = 0;
    if (config.HEALTH_PORT !== undefined) {
      const identity = { namespace: config.PLATFORM_NAMESPACE, bootId: config.BOOT_ID ?? 'unset' };
      const health = await startHealthServer({ port: config.HEALTH_PORT, checks, identity });
      healthPort = health.port;
      readinessOff = { name: 'readiness', run: () => health.markShuttingDown() };
      healthStep = { name: 'health', run: () => health.close() };
    }

    return {
      name: definition.name,
      config,
      ports: { health: healthPort, ...(grpc ? { grpc: grpc.port } : {}), http: httpPorts },
      facts: started.facts ?? {},
      mode: 'serving',
      get shutdownSteps() {
        return steps();
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
