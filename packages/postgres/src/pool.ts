import { metrics } from '@opentelemetry/api';
import pg from 'pg';
import { collectNotifications, flushNotifications } from './notify.js';

// int8 (bigint) columns hold money in minor units; every amount we store is
// far below 2^53, so they are parsed as numbers rather than strings.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;
export type Queryable = Pick<pg.Pool, 'query'>;

/**
 * Every open pool of this process, by name, for the gauges below. A pool
 * that waits for clients (waiting > 0) while idle is 0 is the pool size, not
 * Postgres, limiting throughput.
 */
const openPools = new Map<pg.Pool, { pool: string; max: number }>();
let gaugesRegistered = false;

/** Registered with the first pool, so the meter provider the telemetry preload installs is the one used. */
function registerGauges(): void {
  if (gaugesRegistered) return;
  gaugesRegistered = true;
  const meter = metrics.getMeter('@esim/postgres');
  const total = meter.createObservableGauge('db_pool_connections', { description: 'Connections the pool holds (idle and in use)' });
  const idle = meter.createObservableGauge('db_pool_idle_connections', { description: 'Connections the pool holds that no query uses' });
  const waiting = meter.createObservableGauge('db_pool_waiting_requests', { description: 'Queries waiting for a free connection' });
  const max = meter.createObservableGauge('db_pool_max_connections', { description: 'The pool size' });
  meter.addBatchObservableCallback(
    (result) => {
      for (const [pool, labels] of openPools) {
        result.observe(total, pool.totalCount, { pool: labels.pool });
        result.observe(idle, pool.idleCount, { pool: labels.pool });
        result.observe(waiting, pool.waitingCount, { pool: labels.pool });
        result.observe(max, labels.max, { pool: labels.pool });
      }
    },
    [total, idle, waiting, max],
  );
}

export function createPool(connectionString: string, options: { max?: number; applicationName: string }): pg.Pool {
  const size = options.max ?? 10;
  const pool = new pg.Pool({
    connectionString,
    max: size,
    application_name: options.applicationName,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    statement_timeout: 10_000,
  });
  // An idle client losing its connection must not crash the process; the
  // pool replaces it and readiness reports the outage.
  pool.on('error', () => {});
  // The pool listens only to idle clients. A checked-out one whose session the
  // server ends (a restart, a failover, pg_terminate_backend) emits 'error' with
  // nobody listening, and Node ends the process: the query in flight already
  // rejects with that error, and the pool drops the client on release
  // (`_queryable` is false), so this listener only keeps the process alive.
  // Found by test/e2e/faults-database.test.ts: orders and provisioning died
  // in their outbox relay's tick when Postgres stopped.
  pool.on('connect', (client) => client.on('error', () => {}));
  registerGauges();
  openPools.set(pool, { pool: options.applicationName, max: size });
  const end = pool.end.bind(pool);
  pool.end = ((callback?: () => void) => {
    openPools.delete(pool);
    return callback ? end(callback) : end();
  }) as typeof pool.end;
  return pool;
}

/**
 * Runs `work` on a client of its own, released when it ends. A checked-out
 * client has no listener of the pool's: a session the database ends under
 * the work (idle_in_transaction_session_timeout, a failover) must fail this
 * work, not crash the process. A client found broken (its session ended, or
 * `work` reports a cleanup it could not do through `broken`) leaves the pool
 * instead of serving the next caller.
 */
export async function withClient<T>(pool: pg.Pool, work: (client: pg.PoolClient, broken: (error: Error) => void) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let failure: Error | undefined;
  const broken = (error: Error) => {
    failure ??= error;
  };
  client.on('error', broken);
  try {
    return await work(client, broken);
  } finally {
    client.off('error', broken);
    client.release(failure);
  }
}

/** Runs `work` in one transaction; rolls back on any throw. Wake-ups it asked for (`notifyAfterCommit`) go out once it committed. */
export function withTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return withClient(pool, async (client, broken) => {
    await client.query('BEGIN');
    collectNotifications(client);
    let result: T;
    try {
      result = await work(client);
      await client.query('COMMIT');
    } catch (error) {
      await flushNotifications(client, false);
      await client.query('ROLLBACK').catch(broken);
      throw error;
    }
    // Committed: a failed wake-up must not turn the commit into an error (its readers poll as well).
    await flushNotifications(client, true).catch(broken);
    return result;
  });
}

/** The Postgres error code of a failed query (`23505` unique violation…), if any. */
export function pgErrorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String((error as { code: unknown }).code) : undefined;
}
