/**
 * The levers of issue "Orders at the speed of the database", each measured
 * alone, before and after, in work rather than time (a machine shared with
 * other workloads makes wall-clock figures meaningless; `bench/cost.ts`
 * measures the whole platform): statements, transactions and rows Postgres
 * read per operation, and CPU of this process and of its Postgres backends.
 * "Before" is the code of commit `beforeCommit`, loaded from git beside the
 * current file for the run and removed afterwards.
 *
 *   node --conditions=development --import tsx bench/levers.ts   (BENCH_LEVERS=wallet,relay,webhooks, BENCH_IDLE_S=30)
 */
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { migrateEventTables, type NatsConnection } from '@esim/events';
import { newId } from '@esim/ids';
import { migrate, type Pool } from '@esim/postgres';
import { createTestInfra } from '@esim/testing';
import { createLogger } from '@esim/telemetry';
import { cpuMs } from './support/processStats.js';

const beforeCommit = 'cc5dfa3';
const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const logger = createLogger('levers', 'silent');

let statements = 0;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  statements += 1;
  return (query as (...a: unknown[]) => unknown).apply(this, args);
} as typeof query;

/** Imports `path` as it was at `beforeCommit`, from a file written beside it (so its relative imports resolve). */
async function before<T>(path: string): Promise<{ module: T; remove(): void }> {
  const file = join(repoRoot, path.replace(/\.ts$/, `.before-${beforeCommit}.ts`));
  writeFileSync(file, execFileSync('git', ['show', `${beforeCommit}:${path}`], { cwd: repoRoot }));
  return { module: (await import(file)) as T, remove: () => rmSync(file, { force: true }) };
}

interface Work {
  statements: number;
  xacts: number;
  rowsRead: number;
  backendCpuMs: number;
  selfCpuMs: number;
}

async function measure(pool: Pool, database: string, run: () => Promise<void>): Promise<Work> {
  const counters = async () => {
    await new Promise((r) => setTimeout(r, 1_200));
    await pool.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await pool.query<{ x: number; r: number }>(
      'SELECT (xact_commit + xact_rollback)::float8 AS x, (tup_returned + tup_fetched)::float8 AS r FROM pg_stat_database WHERE datname = $1',
      [database],
    );
    return rows[0]!;
  };
  const backends = async () => {
    const { rows } = await pool.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [database]);
    return rows.reduce((sum, { pid }) => {
      try {
        return sum + cpuMs(pid);
      } catch {
        return sum;
      }
    }, 0);
  };
  const c0 = await counters();
  const b0 = await backends();
  const s0 = statements;
  const u0 = process.cpuUsage();
  await run();
  const u1 = process.cpuUsage(u0);
  const s1 = statements;
  const b1 = await backends();
  const c1 = await counters();
  // The two counter queries and the backends query of `measure` itself are taken off.
  return { statements: s1 - s0, xacts: c1.x - c0.x - 3, rowsRead: c1.r - c0.r, backendCpuMs: b1 - b0, selfCpuMs: (u1.user + u1.system) / 1000 };
}

const per = (w: Work, n: number) =>
  `${(w.statements / n).toFixed(1)} statements, ${(w.xacts / n).toFixed(2)} transactions, ${(w.rowsRead / n).toFixed(1)} rows read, Postgres ${(w.backendCpuMs / n).toFixed(2)} ms + Node ${(w.selfCpuMs / n).toFixed(2)} ms CPU`;

async function walletDebit(pool: Pool, database: string, n: number): Promise<string[]> {
  await migrate({ connectionString: `postgres://postgres@127.0.0.1:5432/${database}`, schema: 'wallet', dir: join(repoRoot, 'services/wallet/migrations') });
  type ReserveModule = typeof import('../services/wallet/src/domain/reserve.js');
  const { appendEntry, lockWalletFor } = await import('../services/wallet/src/domain/movement.js');
  const { withTransaction } = await import('@esim/postgres');
  const now = await import('../services/wallet/src/domain/reserve.js');
  const old = await before<ReserveModule>('services/wallet/src/domain/reserve.ts');
  const deps = { pool, currency: 'USD' };
  const lines: string[] = [];
  try {
    for (const [label, reserve] of [
      ['before', old.module.reserve],
      ['after', now.reserve],
    ] as const) {
      const partnerId = newId('ptn');
      await withTransaction(pool, async (db) => {
        const head = await lockWalletFor(db, partnerId, { create: true });
        await appendEntry(db, head!, { type: 'topup', amount: 10_000_000, reference: `LEVER-${label}` });
      });
      for (let i = 0; i < 20; i++) await reserve(deps, { orderId: newId('ord'), partnerId, amount: 100, description: 'warm-up' });
      const work = await measure(pool, database, async () => {
        for (let i = 0; i < n; i++) await reserve(deps, { orderId: newId('ord'), partnerId, amount: 100, description: 'lever' });
      });
      lines.push(`| wallet Reserve (one order's debit) | ${label} | ${per(work, n)} |`);
    }
  } finally {
    old.remove();
  }
  return lines;
}

async function idleRelay(pool: Pool, database: string, nc: NatsConnection, ns: import('@esim/events').Namespace, seconds: number): Promise<string[]> {
  await migrateEventTables(`postgres://postgres@127.0.0.1:5432/${database}`, 'idle');
  type OutboxModule = typeof import('../packages/events/src/outbox.js');
  const now = await import('../packages/events/src/outbox.js');
  const old = await before<OutboxModule>('packages/events/src/outbox.ts');
  const lines: string[] = [];
  try {
    for (const [label, start] of [
      ['before', old.module.startOutboxRelay],
      ['after', now.startOutboxRelay],
    ] as const) {
      const relay = start({ pool, schema: 'idle', nc, ns, logger });
      await new Promise((r) => setTimeout(r, 1_000));
      const work = await measure(pool, database, () => new Promise((r) => setTimeout(r, seconds * 1000)));
      await relay.stop();
      lines.push(`| one outbox relay at rest | ${label} | ${(work.xacts / seconds).toFixed(1)} transactions/s, ${(work.statements / seconds).toFixed(1)} statements/s, ${((work.backendCpuMs + work.selfCpuMs) / seconds / 1000).toFixed(4)} core (Postgres + Node) |`);
    }
  } finally {
    old.remove();
  }
  return lines;
}

async function idleWebhookWorker(pool: Pool, database: string, seconds: number): Promise<string[]> {
  await migrate({ connectionString: `postgres://postgres@127.0.0.1:5432/${database}`, schema: 'webhooks', dir: join(repoRoot, 'services/webhooks/migrations') });
  type WorkerModule = typeof import('../services/webhooks/src/delivery/worker.js');
  const now = await import('../services/webhooks/src/delivery/worker.js');
  const old = await before<WorkerModule>('services/webhooks/src/delivery/worker.ts');
  const lines: string[] = [];
  try {
    for (const [label, start] of [
      ['before', old.module.startDeliveryWorker],
      ['after', now.startDeliveryWorker],
    ] as const) {
      const worker = start({ pool, logger, concurrency: 32, partnerConcurrency: 4, pollMs: 200, idlePollMs: 5_000, leaseMs: 18_000, attempt: async () => 'succeeded' as never });
      await new Promise((r) => setTimeout(r, 1_000));
      const work = await measure(pool, database, () => new Promise((r) => setTimeout(r, seconds * 1000)));
      await worker.stop();
      lines.push(`| webhook delivery worker at rest | ${label} | ${(work.xacts / seconds).toFixed(1)} transactions/s, ${(work.statements / seconds).toFixed(1)} statements/s, ${((work.backendCpuMs + work.selfCpuMs) / seconds / 1000).toFixed(4)} core (Postgres + Node) |`);
    }
  } finally {
    old.remove();
  }
  return lines;
}

/** BENCH_LEVERS=wallet,relay,webhooks (default: all). */
const only = (name: string) => !process.env.BENCH_LEVERS || process.env.BENCH_LEVERS.split(',').includes(name);
const infra = await createTestInfra('levers', { poolSize: 3 });
const database = new URL(infra.databaseUrl).pathname.slice(1);
try {
  const seconds = Number(process.env.BENCH_IDLE_S ?? 30);
  const lines = [
    '| lever | code | per operation |',
    '|---|---|---|',
    ...(only('wallet') ? await walletDebit(infra.pool, database, Number(process.env.BENCH_LEVER_N ?? 300)) : []),
    ...(only('relay') ? await idleRelay(infra.pool, database, await infra.nats(), infra.ns, seconds) : []),
    ...(only('webhooks') ? await idleWebhookWorker(infra.pool, database, seconds) : []),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  await infra.cleanup();
}
