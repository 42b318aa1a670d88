import { migrateEventTables, pendingEventTableMigrations } from '@esim/events';
import { grantServiceRole, migrate, pendingMigrations } from '@esim/postgres';
import type { Logger } from '@esim/telemetry';
import type { MigrateMode } from './env.js';

/** Thrown by a start that a signal (SIGTERM during boot) cut short; what had started is stopped. */
export class BootAborted extends Error {
  override name = 'BootAborted';
  constructor(reason = 'start aborted') {
    super(reason);
  }
}

/**
 * Resolves as `work` does, or rejects with BootAborted as soon as `signal`
 * aborts. Work that finishes after that is handed to `discard` (a
 * connection nobody will close otherwise).
 */
export function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined, discard?: (late: T) => unknown): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) {
    void work.then((late) => discard?.(late), () => undefined);
    return Promise.reject(signal.reason instanceof BootAborted ? signal.reason : new BootAborted());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason instanceof BootAborted ? signal.reason : new BootAborted());
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        if (signal.aborted) void discard?.(value);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** Waits `ms`, or rejects with BootAborted as soon as `signal` aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(new BootAborted());
    const onAbort = () => {
      clearTimeout(timer);
      reject(new BootAborted());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The schema step of a start, by MIGRATE mode: `on-start` and `only` apply
 * the event tables and the service's migrations (an advisory lock per schema
 * serialises replicas); `off` applies nothing and waits, polling, until the
 * migration Job has recorded every migration this build ships, so a pod
 * never serves on an older schema than its code expects. After migrating,
 * `serviceUrl` (SERVICE_DATABASE_URL) names the service's own role, which
 * is then given its schema and nothing else.
 */
export async function prepareSchema(options: {
  mode: MigrateMode;
  connectionString: string;
  schema: string;
  migrationsDir: string;
  logger: Logger;
  signal?: AbortSignal;
  pollMs?: number;
  serviceUrl?: string | undefined;
}): Promise<void> {
  const { mode, connectionString, schema, migrationsDir, logger, signal } = options;
  if (mode !== 'off') {
    await abortable(migrateEventTables(connectionString, schema), signal);
    await abortable(migrate({ connectionString, schema, dir: migrationsDir }), signal);
    if (options.serviceUrl) {
      const outcome = await abortable(grantServiceRole({ ownerUrl: connectionString, serviceUrl: options.serviceUrl, schema }), signal);
      if (outcome.granted) logger.info({ schema, role: outcome.role }, `role ${outcome.role} may use schema ${schema} and nothing else`);
      else logger.warn({ schema, role: outcome.role }, `SERVICE_DATABASE_URL names the migration role itself (${outcome.role}): no separate role to grant`);
    }
    return;
  }
  let reported = '';
  for (;;) {
    const pending = [
      ...(await abortable(pendingEventTableMigrations(connectionString, schema), signal)),
      ...(await abortable(pendingMigrations({ connectionString, schema, dir: migrationsDir }), signal)),
    ];
    if (pending.length === 0) return;
    const names = pending.join(', ');
    if (names !== reported) {
      logger.warn({ schema, pending }, `MIGRATE=off: waiting for the migration job to apply ${names}`);
      reported = names;
    }
    await sleep(options.pollMs ?? 2_000, signal);
  }
}
