/**
 * The levers of issue "Orders at the speed of the database", each measured
 * alone, before and after, in work rather than time (a machine shared with
 * other workloads makes wall-clock figures meaningless; `bench/cost.ts`
 * measures the whole platform): statements, transactions and rows Postgres
 * read per operation, and CPU of this process and of its Postgres backends.
 * "Before" is the code of the commit named with each lever, loaded from git
 * beside the current files for the run and removed afterwards (or, for a
 * migration, the migrations as they were at that commit, in a database of
 * their own).
 *
 *   node --conditions=development --import tsx bench/levers.ts
 *     (BENCH_LEVERS=wallet,wallet-keys,orders-pay,webhook-endpoint,relay,webhooks, BENCH_IDLE_S=30, BENCH_LEVER_N=300)
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { migrateEventTables, type NatsConnection } from '@esim/events';
import { newId } from '@esim/ids';
import { createPool, migrate, type Pool } from '@esim/postgres';
import { createTestInfra, dropDatabase, type TestInfra } from '@esim/testing';
import { createLogger } from '@esim/telemetry';
import { cpuMs } from './support/processStats.js';

/** The wallet's one-statement debit and the idle relay and worker were measured against this commit. */
const firstLeversCommit = 'cc5dfa3';
/** The FK keys, the orders' payment outside a transaction and the endpoint cache against this one (main when they were made). */
const secondLeversCommit = 'fde75ab';
const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const logger = createLogger('levers', 'silent');

let statements = 0;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  statements += 1;
  return (query as (...a: unknown[]) => unknown).apply(this, args);
} as typeof query;

/** Imports `path` as it was at `commit`, from a file written beside it (so its relative imports resolve). */
async function before<T>(path: string, commit = firstLeversCommit, alongside: string[] = []): Promise<{ module: T; remove(): void }> {
  // Files that changed together are all loaded as they were, each importing the others' old copies.
  const paths = [path, ...alongside];
  const renamed = (file: string) => file.replace(/\.ts$/, `.before-${commit}.ts`);
  const written = paths.map((file) => {
    let text = execFileSync('git', ['show', `${commit}:${file}`], { cwd: repoRoot, encoding: 'utf8' });
    for (const other of paths) {
      const name = other.split('/').pop()!.replace(/\.ts$/, '');
      text = text.replace(new RegExp(`(from '\\.{1,2}/(?:[a-zA-Z]+/)?)${name}\\.js'`, 'g'), `$1${name}.before-${commit}.js'`);
    }
    const target = join(repoRoot, renamed(file));
    writeFileSync(target, text);
    return target;
  });
  const remove = () => written.forEach((file) => rmSync(file, { force: true }));
  try {
    return { module: (await import(written[0]!)) as T, remove };
  } catch (error) {
    remove();
    throw error;
  }
}

/** A directory holding `dir`'s files as they were at `commit` (migrations before a lever). */
function filesAt(commit: string, dir: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), 'levers-'));
  const names = execFileSync('git', ['ls-tree', '--name-only', `${commit}:${dir}`], { cwd: repoRoot, encoding: 'utf8' }).trim().split('\n');
  for (const name of names) writeFileSync(join(path, name), execFileSync('git', ['show', `${commit}:${dir}/${name}`], { cwd: repoRoot }));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

interface Work {
  statements: number;
  xacts: number;
  rowsRead: number;
  backendCpuMs: number;
  selfCpuMs: number;
}

/**
 * `settleMs` before each reading of the counters: an idle backend reports its
 * statistics up to 10 s late (PGSTAT_IDLE_INTERVAL), so per-operation levers
 * wait 11 s; the at-rest ones keep 1.2 s (their own activity continues).
 */
async function measure(pool: Pool, database: string, run: () => Promise<void>, settleMs = 1_200): Promise<Work> {
  const counters = async () => {
    await new Promise((r) => setTimeout(r, settleMs));
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

const perOperationSettleMs = 11_000;

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
      }, perOperationSettleMs);
      lines.push(`| wallet Reserve (one order's debit) | ${label} | ${per(work, n)} |`);
    }
  } finally {
    old.remove();
  }
  return lines;
}

/** The same Reserve code on the wallet schema as migrated at `secondLeversCommit` and now, each in a database of its own. */
async function walletKeys(n: number): Promise<string[]> {
  const { reserve } = await import('../services/wallet/src/domain/reserve.js');
  const { appendEntry, lockWalletFor } = await import('../services/wallet/src/domain/movement.js');
  const { withTransaction } = await import('@esim/postgres');
  const lines: string[] = [];
  for (const label of ['before', 'after'] as const) {
    const infra: TestInfra = await createTestInfra(`levers${label}`, { poolSize: 3 });
    const database = new URL(infra.databaseUrl).pathname.slice(1);
    const dir = label === 'before' ? filesAt(secondLeversCommit, 'services/wallet/migrations') : { path: join(repoRoot, 'services/wallet/migrations'), remove() {} };
    try {
      await migrate({ connectionString: infra.databaseUrl, schema: 'wallet', dir: dir.path });
      const deps = { pool: infra.pool, currency: 'USD' };
      const partnerId = newId('ptn');
      await withTransaction(infra.pool, async (db) => {
        const head = await lockWalletFor(db, partnerId, { create: true });
        await appendEntry(db, head!, { type: 'topup', amount: 10_000_000, reference: `LEVER-${label}` });
      });
      for (let i = 0; i < 20; i++) await reserve(deps, { orderId: newId('ord'), partnerId, amount: 100, description: 'warm-up' });
      const work = await measure(infra.pool, database, async () => {
        for (let i = 0; i < n; i++) await reserve(deps, { orderId: newId('ord'), partnerId, amount: 100, description: 'lever' });
      }, perOperationSettleMs);
      lines.push(`| wallet Reserve, chain and head keys (${n} in a row, one partner) | ${label} | ${per(work, n)} |`);
    } finally {
      dir.remove();
      await infra.cleanup();
    }
  }
  return lines;
}

/**
 * CreateOrder against a wallet that answers Reserve after `walletMs`: per
 * order, the work, and how many pooled connections (each an open transaction
 * holding the order's row lock, before) were checked out while the wallet
 * was answering.
 */
async function ordersPay(pool: Pool, database: string, n: number, walletMs: number): Promise<string[]> {
  const connectionString = `postgres://postgres@127.0.0.1:5432/${database}`;
  await migrate({ connectionString, schema: 'orders', dir: join(repoRoot, 'services/orders/migrations') });
  await migrateEventTables(connectionString, 'orders');
  type CreateOrderModule = typeof import('../services/orders/src/domain/createOrder.js');
  const now = await import('../services/orders/src/domain/createOrder.js');
  const old = await before<CreateOrderModule>('services/orders/src/domain/createOrder.ts', secondLeversCommit, [
    'services/orders/src/domain/confirmPayment.ts',
    'services/orders/src/store/orderStore.ts',
  ]);
  let heldWhileReserving = 0;
  const wallet = {
    async reserve() {
      heldWhileReserving += pool.totalCount - pool.idleCount;
      await new Promise((r) => setTimeout(r, walletMs));
      return { balanceAfter: 1_000_000 };
    },
    reservation: () => Promise.resolve(undefined),
    balance: () => Promise.resolve(1_000_000),
    refund: () => Promise.reject(new Error('not in the lever')),
    close() {},
  };
  const price = { planName: 'Lever 1 GB', price: 500, currency: 'USD', supplierSku: 'SKU-LEVER', countries: ['FR'], region: null, dataMb: 1024, validityDays: 7 };
  const deps = {
    pool,
    catalog: { getPlanPrice: () => Promise.resolve(price), close() {} },
    wallet,
    provisioning: { revokeBundle: () => Promise.reject(new Error('not in the lever')), close() {} },
    cancelWindowMs: 86_400_000,
    currency: 'USD',
    logger,
  } as unknown as import('../services/orders/src/domain/deps.js').OrdersDeps;
  const request = () => ({ partnerId: newId('ptn'), tier: 'standard', clientRequestId: `lever-${newId('req').slice(4)}`, planId: 'pln_lever', email: 'jane@example.com', phoneNumber: '+33612345678' });
  const lines: string[] = [];
  try {
    for (const [label, createOrder] of [
      ['before', old.module.createOrder],
      ['after', now.createOrder],
    ] as const) {
      for (let i = 0; i < 10; i++) await createOrder(deps, request());
      heldWhileReserving = 0;
      const work = await measure(pool, database, async () => {
        for (let i = 0; i < n; i++) await createOrder(deps, request());
      }, perOperationSettleMs);
      lines.push(
        `| orders CreateOrder (wallet answering in ${walletMs} ms) | ${label} | ${per(work, n)}; ${(heldWhileReserving / n).toFixed(2)} connections (open transactions) held while the wallet answers |`,
      );
    }
  } finally {
    old.remove();
  }
  return lines;
}

/**
 * The webhook endpoint lookup of `n` deliveries to one partner, against the
 * real partners service in this process: before, GetWebhookEndpoint at every
 * attempt (as the webhooks service did at `secondLeversCommit`); after,
 * through the webhooks service's endpoint cache.
 */
async function webhookEndpoint(infra: TestInfra, database: string, n: number): Promise<string[]> {
  const { partnersService } = await import('../services/partners/src/app.js');
  const { endpointCache } = await import('../services/webhooks/src/delivery/endpointCache.js');
  const { partnersV1 } = await import('@esim/proto');
  const partners = await infra.serve(partnersService, partnersV1.PartnersService, { LOG_LEVEL: 'silent' });
  const audit = { operator: 'lever@example.com', requestId: 'req_lever' };
  const registered = await partners.client.register({ name: 'Lever', email: `lever-${newId('req').slice(4)}@example.com`, company: 'Lever Co', password: 'correct horse battery' });
  // Approval needs a proved address (§4); this in-process lever has no mailer to read the link from, so it marks it directly.
  await infra.query('UPDATE partners.partners SET email_verified_at = now() WHERE id = $1', [registered.id]);
  await partners.client.approvePartner({ id: registered.id, tier: 'standard', audit });
  await partners.client.updatePartner({ id: registered.id, webhookUrl: 'https://hooks.example.com/lever' });
  const lookup = async (partnerId: string) => {
    const { url, sealedSecret } = await partners.client.getWebhookEndpoint({ partnerId }, { deadlineMs: 3_000 });
    return { url, sealedSecret };
  };
  const lines: string[] = [];
  for (const [label, endpointOf] of [
    ['before', lookup],
    ['after', endpointCache(lookup, { ttlMs: 60_000 }).get],
  ] as const) {
    for (let i = 0; i < 10; i++) await endpointOf(registered.id);
    const work = await measure(infra.pool, database, async () => {
      for (let i = 0; i < n; i++) await endpointOf(registered.id);
    }, perOperationSettleMs);
    lines.push(`| webhook endpoint per delivery attempt (${n} to one partner; partners service in-process) | ${label} | ${per(work, n)} (Node: both services) |`);
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

/** BENCH_LEVERS=wallet,wallet-keys,orders-pay,webhook-endpoint,relay,webhooks (default: all). */
const only = (name: string) => !process.env.BENCH_LEVERS || process.env.BENCH_LEVERS.split(',').includes(name);
const infra = await createTestInfra('levers', { poolSize: 3 });
const n = Number(process.env.BENCH_LEVER_N ?? 300);
const database = new URL(infra.databaseUrl).pathname.slice(1);
try {
  const seconds = Number(process.env.BENCH_IDLE_S ?? 30);
  const lines = [
    '| lever | code | per operation |',
    '|---|---|---|',
    ...(only('wallet') ? await walletDebit(infra.pool, database, n) : []),
    ...(only('wallet-keys') ? await walletKeys(n) : []),
    ...(only('orders-pay') ? await ordersPay(infra.pool, database, n, Number(process.env.BENCH_WALLET_MS ?? 5)) : []),
    ...(only('webhook-endpoint') ? await webhookEndpoint(infra, database, n) : []),
    ...(only('relay') ? await idleRelay(infra.pool, database, await infra.nats(), infra.ns, seconds) : []),
    ...(only('webhooks') ? await idleWebhookWorker(infra.pool, database, seconds) : []),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  await infra.cleanup();
}
