import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { commonEnv } from '@esim/config';
import { parseLanes, type Lane } from '@esim/events';

/** An empty variable (`NATS_CREDS=`) means unset, as in a shell or a compose file. */
const optionalPath = z.preprocess((value) => (value === '' ? undefined : value), z.string().min(1).optional());

/** How a process treats its schema's migrations at start. */
export const migrateModes = ['on-start', 'only', 'off'] as const;
export type MigrateMode = (typeof migrateModes)[number];

/**
 * Process-level settings every service reads, the gateway included:
 * - MIGRATE: `on-start` (default; development, Compose) applies the
 *   migrations under an advisory lock and serves; `only` applies them and
 *   exits 0 (the migration Job); `off` applies nothing and waits until every
 *   migration this build ships is recorded (production pods, after the Job).
 * - NATS_CREDS, NATS_TLS_CA, NATS_TLS_CERT, NATS_TLS_KEY: files (mounted
 *   Secrets) for an authenticated, encrypted NATS.
 * - NATS_STREAM_REPLICAS: JetStream replicas of the streams this service
 *   creates or updates (3 on a clustered NATS).
 * - SHUTDOWN_TIMEOUT_MS: the deadline of the whole shutdown after SIGTERM;
 *   keep it below terminationGracePeriodSeconds minus the preStop pause.
 * - GRPC_TLS_CA, GRPC_TLS_CERT, GRPC_TLS_KEY: files (PEM) of this service's
 *   gRPC identity: the platform CA, its certificate (common name = the
 *   service name) and key. Every gRPC server requires a client certificate
 *   of that CA, and each caller may call only its methods (@esim/grpc
 *   access.ts). Required in production; development uses var/pki.
 * - SERVICE_DATABASE_URL: with MIGRATE=only or on-start, the URL the service's
 *   pods connect with (a role of its own, #24): after migrating as
 *   DATABASE_URL (the owner), the role is created or updated from it and
 *   granted this schema only (@esim/postgres grantServiceRole). Unset: no
 *   role is touched (one role for everything, as `npm start` runs).
 * - EVENT_LANES: the saga lanes this process consumes (@esim/events
 *   lanes.ts): `live,test` (default: one process serves both modes),
 *   `live`, or `test` (a test-mode replica, which a deployment gives a CPU
 *   limit or a lower priority so test load cannot slow live, §14).
 * - BOOT_ID: who this process is, reported by /readyz with the namespace; the
 *   launcher sets one per start and accepts no readiness answered by another
 *   process (a stranger holding the port). A random one by default.
 */
export const runtimeEnv = {
  MIGRATE: z.enum(migrateModes).default('on-start'),
  NATS_CREDS: optionalPath,
  NATS_TLS_CA: optionalPath,
  NATS_TLS_CERT: optionalPath,
  NATS_TLS_KEY: optionalPath,
  NATS_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  GRPC_TLS_CA: optionalPath,
  GRPC_TLS_CERT: optionalPath,
  GRPC_TLS_KEY: optionalPath,
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(600_000).default(20_000),
  // Connections per process to Postgres; unset: the service's own size (sized for its consumers). Lower it when many
  // replicas share one server's max_connections (the clustered benchmark's sixteen processes) or sit behind PgBouncer.
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).optional(),
  SERVICE_DATABASE_URL: optionalPath,
  EVENT_LANES: z
    .string()
    .default('live,test')
    .transform((value, ctx) => {
      try {
        return parseLanes(value);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    }),
  BOOT_ID: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, _ or -').default(() => randomUUID()),
};

/**
 * The variables every service reads, as zod fields a service spreads into its
 * own config schema: `z.object({ ...serviceEnv(9092), GRPC_PORT:
 * commonEnv.port(50052), DATABASE_URL: commonEnv.DATABASE_URL, … })`. The
 * default ports are the service's entry in scripts/launcher/services.ts.
 */
export function serviceEnv(healthPort: number) {
  return {
    NODE_ENV: commonEnv.NODE_ENV,
    LOG_LEVEL: commonEnv.LOG_LEVEL,
    NATS_URL: commonEnv.NATS_URL,
    PLATFORM_NAMESPACE: commonEnv.PLATFORM_NAMESPACE,
    HEALTH_PORT: commonEnv.port(healthPort),
    ...runtimeEnv,
  };
}

/** What the bootstrap needs from any service's parsed config. */
export interface BaseConfig {
  NODE_ENV?: string;
  LOG_LEVEL: string;
  NATS_URL?: string;
  PLATFORM_NAMESPACE: string;
  HEALTH_PORT?: number;
  GRPC_PORT?: number;
  DATABASE_URL?: string;
  MIGRATE?: MigrateMode;
  NATS_CREDS?: string;
  NATS_TLS_CA?: string;
  NATS_TLS_CERT?: string;
  NATS_TLS_KEY?: string;
  NATS_STREAM_REPLICAS?: number;
  SHUTDOWN_TIMEOUT_MS?: number;
  DATABASE_POOL_MAX?: number;
  EVENT_LANES?: Lane[];
  BOOT_ID?: string;
  SERVICE_DATABASE_URL?: string;
  GRPC_TLS_CA?: string;
  GRPC_TLS_CERT?: string;
  GRPC_TLS_KEY?: string;
}

/**
 * Address of another service's gRPC API: `host:port` (a name resolved to
 * every address behind it: a headless Service), or a fixed list of
 * replicas `ipv4:10.0.0.1:50054,10.0.0.2:50054` (calls go round-robin over
 * those that answer; the cluster suite runs two replicas of each service so).
 */
const grpcAddressSchema = z
  .string()
  .regex(/^([^\s:,]+:\d+|ipv4:[\d.]+:\d+(,[\d.]+:\d+)*)$/, 'must be host:port, or ipv4:a.b.c.d:port,a.b.c.d:port for a fixed list of replicas');
export const grpcAddress = (fallback: string) => grpcAddressSchema.default(fallback);

/**
 * The address of a service's test-mode replicas (EVENT_LANES=test, contract
 * §14), which take the calls a test account makes; empty or unset: the
 * service's own replicas take them too.
 */
export const testModeGrpcAddress = () =>
  z.preprocess((value) => (value === '' ? undefined : value), grpcAddressSchema.optional());
