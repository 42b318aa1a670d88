/**
 * The webhook benchmark (issue "Signed webhook delivery"): the lag from the
 * commit of a `provision.provisioned` event to the partner receiver's 2xx,
 * at a sustained order rate, with a receiver on loopback that answers at
 * once and a supplier that answers at once. The event's `createdAt` is
 * stamped inside the committing transaction, so receive time − createdAt is
 * commit → relay → JetStream → webhooks consumer → delivery worker → POST.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { repoRoot } from '../scripts/launcher/supervisor.js';
import { log, startBenchPlatform, writeSection } from './support/benchPlatform.js';

const ratePerSecond = Number(process.env.BENCH_WEBHOOK_RATE ?? 20);
const durationS = Number(process.env.BENCH_DURATION_S ?? 15);
const reportFile = join(repoRoot, 'docs', 'benchmarks.md');

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

export async function webhooksBenchmark(): Promise<void> {
  const lags: number[] = [];
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const receivedAt = Date.now();
      res.writeHead(204).end();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; createdAt: string };
      if (body.type === 'provision.provisioned') lags.push(receivedAt - Date.parse(body.createdAt));
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

  const bench = await startBenchPlatform({ SUPPLIER_LATENCY_MS: '0', WEBHOOK_ALLOW_INSECURE_URLS: 'true' });
  let failed = false;
  try {
    const { partnerId, apiKey } = await bench.onboard();
    const asAdmin = { 'content-type': 'application/json', authorization: `Bearer ${bench.adminToken}` };
    const patched = await fetch(`${bench.adminUrl}/admin/v1/partners/${partnerId}`, { method: 'PATCH', headers: asAdmin, body: JSON.stringify({ webhookUrl: receiverUrl }) });
    if (patched.status !== 200) throw new Error(`webhook URL answered ${patched.status}: ${await patched.text()}`);
    const topup = await fetch(`${bench.adminUrl}/admin/v1/partners/${partnerId}/wallet/topups`, {
      method: 'POST',
      headers: asAdmin,
      body: JSON.stringify({ amount: 100_000_000, reference: 'BENCH-WEBHOOKS' }),
    });
    if (topup.status !== 201) throw new Error(`top-up answered ${topup.status}: ${await topup.text()}`);
    const auth = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
    const plans = (await (await fetch(`${bench.publicUrl}/api/v1/partner/catalog?limit=1`, { headers: auth })).json()) as { data: Array<{ id: string }> };

    const total = ratePerSecond * durationS;
    log(`webhooks: ${total} orders at ${ratePerSecond}/s, measuring commit → receiver lag of provision.provisioned`);
    const startedAt = Date.now();
    const placed: Array<Promise<number>> = [];
    for (let i = 0; i < total; i++) {
      const due = startedAt + (i * 1000) / ratePerSecond;
      await new Promise((r) => setTimeout(r, Math.max(0, due - Date.now())));
      placed.push(
        fetch(`${bench.publicUrl}/api/v1/partner/orders`, {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({ clientRequestId: `wh-${i}`, planId: plans.data[0]!.id, email: 'bench@example.com', phoneNumber: '+33612345678' }),
        }).then((r) => r.status),
      );
    }
    const statuses = await Promise.all(placed);
    const accepted = statuses.filter((s) => s === 201).length;
    const deadline = Date.now() + 60_000;
    while (lags.length < accepted && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    if (lags.length < accepted) throw new Error(`only ${lags.length} of ${accepted} provision.provisioned webhooks arrived within 60 s`);

    const sorted = [...lags].sort((a, b) => a - b);
    const table = [
      '| orders/s | orders | webhooks received | lag p50 | lag p99 | max |',
      '|---:|---:|---:|---:|---:|---:|',
      `| ${ratePerSecond} | ${accepted} | ${lags.length} | ${percentile(sorted, 50)} ms | ${percentile(sorted, 99)} ms | ${sorted.at(-1)} ms |`,
    ].join('\n');
    process.stdout.write(`\n${table}\n`);
    await writeSection(
      reportFile,
      'webhooks',
      `Measured ${new Date().toISOString()}, Node ${process.version}: commit of \`provision.provisioned\` → the receiver's 2xx, receiver on loopback answering 204 at once, supplier latency 0, ${durationS} s of orders at a steady rate.\n\n${table}`,
    );
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    await bench.stop(failed);
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await webhooksBenchmark();
