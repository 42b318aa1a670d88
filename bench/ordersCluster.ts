/**
 * The cost of replication (issue #18): order creation at 50 connections on
 * the single-node platform (one NATS, one Redis, one process per service)
 * and, in the same run, on the clustered one (a 3-node JetStream cluster with
 * every stream at R3, a 6-node Redis Cluster, two replicas of each service,
 * the 50 connections split over the two gateways). Both compiled, supplier
 * latency 0, ledger invariants checked after each. Writes its section of
 * docs/benchmarks.md.
 *
 *   npm run bench -- --only orders-cluster
 */
import autocannon, { type Result } from 'autocannon';
import { mkdtemp, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { repoRoot } from '../scripts/launcher/supervisor.js';
import { startClusterPlatform } from '../test/cluster/support/clusterPlatform.js';
import { cleanUp } from '../test/cluster/support/cleanUp.js';
import { buildCompiled, log, onboard, startBenchPlatform, writeSection } from './support/benchPlatform.js';

const durationS = Number(process.env.BENCH_DURATION_S ?? 10);
const connections = 50;
const reportFile = join(repoRoot, 'docs', 'benchmarks.md');

interface Target {
  gateways: string[];
  adminUrl: string;
  adminToken: string;
  databaseUrl: string;
  mailDir: string;
}

interface Measured {
  ordersPerS: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

/** One funded partner, then `connections` spread over the gateways for `durationS`; waits for every order to settle and checks the ledger. */
async function measure(target: Target): Promise<Measured> {
  const { partnerId, apiKey } = await onboard(target.gateways[0]!, target.adminUrl, target.adminToken, target.mailDir, 'standard');
  const admin = { 'content-type': 'application/json', authorization: `Bearer ${target.adminToken}` };
  const topup = await fetch(`${target.adminUrl}/admin/v1/partners/${partnerId}/wallet/topups`, { method: 'POST', headers: admin, body: JSON.stringify({ amount: 100_000_000, reference: 'BENCH-CLUSTER' }) });
  if (topup.status !== 201) throw new Error(`top-up answered ${topup.status}: ${await topup.text()}`);
  const catalog = (await (await fetch(`${target.gateways[0]}/api/v1/partner/catalog?limit=1`, { headers: { authorization: `Bearer ${apiKey}` } })).json()) as { data: Array<{ id: string }> };
  const share = Math.floor(connections / target.gateways.length);
  const results: Result[] = await Promise.all(
    target.gateways.map((gateway) =>
      autocannon({
        url: `${gateway}/api/v1/partner/orders`,
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ clientRequestId: `bench-[<id>]`, planId: catalog.data[0]!.id, email: 'bench@example.com', phoneNumber: '+33612345678' }),
        idReplacement: true,
        connections: share,
        duration: durationS,
        timeout: 10,
      }),
    ),
  );
  const pool = new pg.Pool({ connectionString: target.databaseUrl, max: 1 });
  try {
    const deadline = Date.now() + 300_000;
    for (;;) {
      const { rows } = await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM orders.orders WHERE partner_id = $1 AND status IN ('pending', 'processing')", [partnerId]);
      if (rows[0]!.n === 0) break;
      if (Date.now() > deadline) throw new Error(`${rows[0]!.n} orders unsettled after 300 s`);
      await new Promise((r) => setTimeout(r, 500));
    }
    const { rows } = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM orders.orders o
       LEFT JOIN (SELECT order_id, count(*) AS d FROM wallet.ledger_entries WHERE type = 'order_debit' GROUP BY order_id) l ON l.order_id = o.id
       WHERE o.partner_id = $1 AND coalesce(l.d, 0) <> 1`,
      [partnerId],
    );
    if (rows[0]!.n > 0) throw new Error(`${rows[0]!.n} orders not debited exactly once`);
  } finally {
    await pool.end();
  }
  return {
    ordersPerS: results.reduce((sum, r) => sum + r.requests.average, 0),
    // The slower gateway's percentiles: what the worse half of the clients saw.
    p50: Math.max(...results.map((r) => r.latency.p50)),
    p99: Math.max(...results.map((r) => r.latency.p99)),
    non2xx: results.reduce((sum, r) => sum + r.non2xx, 0),
    errors: results.reduce((sum, r) => sum + r.errors, 0),
  };
}

const benchEnv = (mailDir: string, adminToken: string) => ({
  NODE_ENV: 'production',
  CATALOG_SEED: 'true',
  LOG_LEVEL: 'warn',
  ADMIN_TOKEN: adminToken,
  JWT_SECRET: randomBytes(32).toString('base64'),
  DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  // Production refuses to start the simulator without the secret its notifications are signed with (contract §13).
  SUPPLIER_CALLBACK_SECRET: randomBytes(32).toString('base64url'),
  RATE_LIMIT_PER_KEY: '1000000/1s',
  // Sixteen processes against one Postgres of 100 connections (a cluster would put PgBouncer there).
  DATABASE_POOL_MAX: '5',
  MAIL_DIR: mailDir,
  SUPPLIER_LATENCY_MS: '0',
  OTEL_SDK_DISABLED: 'true',
});

export async function ordersClusterBenchmark(options: { report?: boolean } = {}): Promise<void> {
  buildCompiled();
  const rows: Array<{ shape: string; measured: Measured }> = [];

  const single = await startBenchPlatform({ SUPPLIER_LATENCY_MS: '0' });
  try {
    log(`single node, ${connections} connections: ${durationS}s`);
    const target = { gateways: [single.publicUrl], adminUrl: single.adminUrl, adminToken: single.adminToken, databaseUrl: single.databaseUrl, mailDir: single.mailDir };
    rows.push({ shape: 'single node: 1 NATS (R1), 1 Redis, 1 process per service', measured: await measure(target) });
  } finally {
    await single.stop(false);
  }

  const workDir = await mkdtemp(join(tmpdir(), 'esim-bench-cluster-'));
  const adminToken = `adm_${randomBytes(24).toString('base64url')}`;
  const mailDir = join(workDir, 'mail');
  const clustered = await startClusterPlatform(benchEnv(mailDir, adminToken), { mode: 'compiled', logDir: join(workDir, 'logs') });
  try {
    const [a, b] = clustered.replicaPorts;
    log(`clusters, two replicas, ${connections} connections: ${durationS}s`);
    const gateways = [a, b].map((ports) => `http://127.0.0.1:${ports.gateway!.http}`);
    rows.push({ shape: 'clusters: 3 NATS (R3), Redis Cluster 3+3, 2 replicas per service', measured: await measure({ gateways, adminUrl: `http://127.0.0.1:${a.gateway!.admin}`, adminToken, databaseUrl: clustered.databaseUrl, mailDir }) });
  } finally {
    await clustered.stop();
    await cleanUp(clustered.databaseUrl);
    await rm(workDir, { recursive: true, force: true });
  }

  const table = [
    `| platform | orders/s at ${connections} connections | p50 | p99 | non-2xx | errors |`,
    '|---|---:|---:|---:|---:|---:|',
    ...rows.map(({ shape, measured: m }) => `| ${shape} | ${Math.round(m.ordersPerS)} | ${m.p50} ms | ${m.p99} ms | ${m.non2xx} | ${m.errors} |`),
  ].join('\n');
  process.stdout.write(`\n${table}\n`);
  if (options.report !== false) {
    await writeSection(reportFile, 'orders-cluster', `Measured ${new Date().toISOString()}, Node ${process.version}, ${durationS} s per run, compiled, supplier latency 0, every order debited exactly once after each run.\n\n${table}`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await ordersClusterBenchmark();
