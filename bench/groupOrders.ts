/**
 * `node --conditions=development --import tsx bench/groupOrders.ts [--report]`
 * (issue #27): the CPU of one 50-eSIM group order beside 50 single orders of
 * the same plan, from the same run of one platform: CPU time from /proc of
 * every service, the platform's Postgres backends and NATS, from the first
 * request until every order's provision.* webhook arrived. Small on purpose:
 * one platform, a warm-up, then each load once (a shared machine makes one
 * run a rough figure; the ratio is what matters).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { repoRoot } from '../scripts/launcher/supervisor.js';
import { cpuByProcess, natsPid } from './cost.js';
import { log, startBenchPlatform, writeSection } from './support/benchPlatform.js';

const quantity = 50;

async function main(report: boolean): Promise<void> {
  let received = 0;
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(204).end();
      if ((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string }).type.startsWith('provision.')) received += 1;
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  const bench = await startBenchPlatform({ SUPPLIER_LATENCY_MS: '0', WEBHOOK_ALLOW_INSECURE_URLS: 'true' }, { mode: 'sources' });
  const database = new URL(bench.databaseUrl).pathname.slice(1);
  const pool = new pg.Pool({ connectionString: bench.databaseUrl, max: 1 });
  const nats = natsPid();
  const backends = new Map<number, number>();
  let failed = false;
  try {
    const { partnerId, apiKey } = await bench.onboard();
    const asAdmin = { 'content-type': 'application/json', authorization: `Bearer ${bench.adminToken}` };
    await fetch(`${bench.adminUrl}/admin/v1/partners/${partnerId}`, { method: 'PATCH', headers: asAdmin, body: JSON.stringify({ webhookUrl: receiverUrl }) });
    await fetch(`${bench.adminUrl}/admin/v1/partners/${partnerId}/wallet/topups`, { method: 'POST', headers: asAdmin, body: JSON.stringify({ amount: 100_000_000, reference: 'BENCH-GROUP' }) });
    const auth = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
    const plans = (await (await fetch(`${bench.publicUrl}/api/v1/partner/catalog?country=FR&limit=1`, { headers: auth })).json()) as { data: Array<{ id: string }> };
    const planId = plans.data[0]!.id;
    const order = (id: string, extra: Record<string, unknown> = {}) =>
      fetch(`${bench.publicUrl}/api/v1/partner/orders`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ clientRequestId: id, planId, email: 'bench@example.com', phoneNumber: '+33612345678', ...extra }),
      }).then(async (r) => (await r.arrayBuffer(), r.status));
    const settled = async (expected: number) => {
      const deadline = Date.now() + 180_000;
      while (received < expected) {
        if (Date.now() > deadline) throw new Error(`not settled (${received}/${expected})`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const measure = async (label: string, load: () => Promise<number>) => {
      received = 0;
      const before = await cpuByProcess(pool, database, bench.pids(), nats, backends);
      const started = performance.now();
      const webhooks = await load();
      await settled(webhooks);
      const wallMs = performance.now() - started;
      const after = await cpuByProcess(pool, database, bench.pids(), nats, backends);
      const cpu = Object.fromEntries(Object.keys(after).map((k) => [k, after[k]! - (before[k] ?? 0)]));
      log(`${label}: ${Object.values(cpu).reduce((a, b) => a + b, 0).toFixed(0)} ms CPU, ${wallMs.toFixed(0)} ms wall`);
      return { cpu, wallMs };
    };
    // Warm-up: JIT, pools and caches past their first use, for both shapes.
    await measure('warm-up', async () => {
      for (let i = 0; i < 5; i++) await order(`warm-${i}`);
      await order('warm-group', { quantity: 5 });
      return 6;
    });
    const singles = await measure(`${quantity} single orders`, async () => {
      const statuses = await Promise.all(Array.from({ length: quantity }, (_, i) => order(`single-${i}`)));
      if (statuses.some((s) => s !== 201)) throw new Error(`single orders answered ${statuses.join(',')}`);
      return quantity;
    });
    const group = await measure(`one order of ${quantity}`, async () => {
      const status = await order('group', { quantity });
      if (status !== 201) throw new Error(`the group order answered ${status}`);
      return 1;
    });
    const names = Object.keys(singles.cpu).sort((a, b) => singles.cpu[b]! - singles.cpu[a]!);
    const total = (cpu: Record<string, number>) => Object.values(cpu).reduce((a, b) => a + b, 0);
    const text = [
      `| ${quantity} eSIMs as | ${names.join(' | ')} | all (ms CPU) | wall (ms) |`,
      `|---|${names.map(() => '---:').join('|')}|---:|---:|`,
      `| ${quantity} single orders | ${names.map((n) => singles.cpu[n]!.toFixed(0)).join(' | ')} | ${total(singles.cpu).toFixed(0)} | ${singles.wallMs.toFixed(0)} |`,
      `| one order of ${quantity} | ${names.map((n) => (group.cpu[n] ?? 0).toFixed(0)).join(' | ')} | ${total(group.cpu).toFixed(0)} | ${group.wallMs.toFixed(0)} |`,
      '',
      `One group order of ${quantity} used ${((100 * total(group.cpu)) / total(singles.cpu)).toFixed(0)} % of the CPU of ${quantity} single orders.`,
    ].join('\n');
    process.stdout.write(`\n${text}\n`);
    if (report) {
      await writeSection(
        join(repoRoot, 'docs', 'benchmarks.md'),
        'group-orders',
        `### One 50-eSIM order vs 50 single orders (#27)\n\nMeasured ${new Date().toISOString()}, Node ${process.version}, sources (tsx), one run on a machine shared with other workloads (\`bench/groupOrders.ts --report\`): CPU from /proc of every service, the platform's Postgres backends and NATS, from the first request until every order's \`provision.*\` webhook arrived.\n\n${text}`,
      );
    }
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    await pool.end();
    await bench.stop(failed);
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
}

await main(process.argv.includes('--report'));
process.exit(0);
