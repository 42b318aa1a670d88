import { fileURLToPath } from 'node:url';
import { parseDataKey } from '@esim/crypto';
import { connectNats, ensureStreams, exactlyOnce, namespace, startConsumer, startOutboxRelay } from '@esim/events';
import { addService, startGrpcServer } from '@esim/grpc';
import { createPool, migrate } from '@esim/postgres';
import { partnersV1 } from '@esim/proto';
import { startHealthServer, type ShutdownStep } from '@esim/runtime';
import type { Logger } from '@esim/telemetry';
import type { Config } from './config.js';
import { schema, type PartnersDeps } from './domain/deps.js';
import { partnersHandlers } from './grpc/handlers.js';
import { recordAuditEntry } from './store/auditStore.js';

const migrationsDir = fileURLToPath(new URL('../migrations', import.meta.url));

export interface RunningPartners {
  grpcPort: number;
  healthPort: number;
  shutdownSteps: ShutdownStep[];
}

/** Wires the partners service: migrations, gRPC API, outbox relay, audit consumer, health. */
export async function startPartners(config: Config, logger: Logger): Promise<RunningPartners> {
  await migrate({ connectionString: config.DATABASE_URL, schema, dir: migrationsDir });
  const pool = createPool(config.DATABASE_URL, { applicationName: 'partners' });
  const nc = await connectNats(config.NATS_URL, 'partners');
  const ns = namespace(config.PLATFORM_NAMESPACE);
  await ensureStreams(nc, ns, ['MAIL', 'AUDIT', 'PARTNERS']);

  const deps: PartnersDeps = { pool, dataKey: parseDataKey(config.DATA_ENCRYPTION_KEY), passwordCost: config.PASSWORD_HASH_COST };
  const grpc = await startGrpcServer({
    port: config.GRPC_PORT,
    register: (server) =>
      addService(server, partnersV1.PartnersService, partnersHandlers(deps), (error, method) =>
        logger.error({ err: error, method }, 'unexpected error in RPC'),
      ),
  });
  const relay = startOutboxRelay({ pool, schema, nc, ns, logger });
  // Other services' operator actions (plan edits, top-ups) arrive as events; the log lives here.
  const audit = await startConsumer({
    nc,
    ns,
    logger,
    spec: { durable: 'partners_audit', type: 'audit.recorded', ackWaitMs: 30_000, maxDeliver: 20, retryDelayMs: (n) => Math.min(1_000 * 2 ** n, 60_000) },
    handle: exactlyOnce(pool, schema, 'partners_audit', (event, db) => recordAuditEntry(db, event.id.replace(/^evt_/, 'aud_'), event.data)),
  });
  const health = await startHealthServer({
    port: config.HEALTH_PORT,
    checks: [
      { name: 'postgres', check: () => pool.query('SELECT 1') },
      { name: 'nats', check: () => nc.flush() },
    ],
  });

  return {
    grpcPort: grpc.port,
    healthPort: health.port,
    shutdownSteps: [
      { name: 'readiness', run: () => health.markShuttingDown() },
      { name: 'grpc', run: () => grpc.stop() },
      { name: 'audit consumer', run: () => audit.stop() },
      { name: 'outbox relay', run: () => relay.stop() },
      { name: 'nats', run: () => nc.drain() },
      { name: 'postgres', run: () => pool.end() },
      { name: 'health', run: () => health.close() },
    ],
  };
}
