/**
 * The soak (`npm run bench -- --soak 10m`): the compiled platform under the
 * production tracing setting, a steady mix of catalog reads and order
 * creation for the whole duration. Every 10 s it takes the p99 latency of
 * each request stream (as the client saw it, over those 10 s) and the RSS of
 * every service. At the end it compares the first and second half of each
 * series and fails (exit code 1) when one drifts upward (support/drift.ts),
 * draws the series into docs/soak.svg (vega-lite) and writes its section of
 * docs/benchmarks.md.
 */
import autocannon, { type Instance } from 'autocannon';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../scripts/launcher/supervisor.js';
import { buildCompiled, log, startBenchPlatform, startScript, writeSection } from './support/benchPlatform.js';
import { rssMiB } from './support/processStats.js';
import { productionNodeOptions } from '../scripts/deploy/nodeOptions.js';
import { drift, driftRules, type Drift } from './support/drift.js';
import { drawSoakChart, type Sample } from './support/soakChart.js';

export interface SoakOptions {
  /** `10m`, `90s`, `1m`… */
  duration: string;
  report: boolean;
  /** Steady request rates (per second) of the two streams. */
  catalogRate?: number;
  orderRate?: number;
}

const sampleEveryMs = 10_000;
/** Drift is judged after the first minute (JIT, caches and the heap settling), or the first fifth of a shorter run. */
const settleMs = 60_000;

function seconds(duration: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(duration.trim());
  if (!match) throw new Error(`--soak takes a duration like 10m, 90s or 1h, not "${duration}"`);
  const factor = { ms: 0.001, s: 1, m: 60, h: 3600 }[(match[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  return Number(match[1]) * factor;
}

function p99(values: number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)]!;
}

export async function soakBenchmark(options: SoakOptions): Promise<{ samples: Sample[]; drifts: Drift[] }> {
  const totalS = seconds(options.duration);
  const catalogRate = options.catalogRate ?? 200;
  const orderRate = options.orderRate ?? 10;
  const loadAtStart = loadavg()[0]!;
  buildCompiled();
  const receiver = await startScript('otlpReceiver.ts');
  const bench = await startBenchPlatform(
    {
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.1',
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.port}`,
      SUPPLIER_LATENCY_MS: '0',
      // Memory is judged with the heap the services run with in production (bench/startup.ts).
      NODE_OPTIONS: productionNodeOptions.join(' '),
    },
    { mode: 'compiled' },
  );
  let failed = false;
  const running: Instance[] = [];
  const samples: Sample[] = [];
  const counts = { answers: 0, errors: 0, unexpected: 0 };
  try {
    const { partnerId, apiKey } = await bench.onboard();
    for (let i = 0; i < Math.ceil((orderRate * totalS * 5_000) / 100_000_000) + 1; i += 1) {
      const topup = await fetch(`${bench.adminUrl}/admin/v1/partners/${partnerId}/wallet/topups`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${bench.adminToken}` },
        body: JSON.stringify({ amount: 100_000_000, reference: `SOAK-${i}` }),
      });
      if (topup.status !== 201) throw new Error(`top-up answered ${topup.status}: ${await topup.text()}`);
    }
    const auth = { authorization: `Bearer ${apiKey}` };
    const plan = ((await (await fetch(`${bench.publicUrl}/api/v1/partner/catalog?country=FR&limit=1`, { headers: auth })).json()) as { data: Array<{ id: string }> }).data[0]!;

    log(`soak: ${totalS}s, catalog ${catalogRate}/s, orders ${orderRate}/s; a sample every ${sampleEveryMs / 1000}s`);
    const windows = { catalog: [] as number[], orders: [] as number[] };
    const stream = (name: 'catalog' | 'orders', instance: Instance, expected: number) => {
      instance.on('response', (_client, statusCode, _bytes, responseTime) => {
        counts.answers += 1;
        if (statusCode !== expected) counts.unexpected += 1;
        windows[name].push(responseTime);
      });
      running.push(instance);
      return instance;
    };
    const catalogLoad = stream(
      'catalog',
      autocannon({
        url: `${bench.publicUrl}/api/v1/partner/catalog`,
        headers: auth,
        // A mix of filters and pages, in turn.
        requests: ['?country=FR', '', '?country=DE&limit=20', '?page=2', '?country=US'].map((query) => ({ method: 'GET', path: `/api/v1/partner/catalog${query}` })),
        connections: 10,
        overallRate: catalogRate,
        duration: totalS,
        timeout: 10,
      }),
      200,
    );
    const orderLoad = stream(
      'orders',
      autocannon({
        url: `${bench.publicUrl}/api/v1/partner/orders`,
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ clientRequestId: 'soak-[<id>]', planId: plan.id, email: 'soak@example.com', phoneNumber: '+33612345678' }),
        idReplacement: true,
        connections: 4,
        overallRate: orderRate,
        duration: totalS,
        timeout: 10,
      }),
      201,
    );
    const startedAt = performance.now();
    const timer = setInterval(() => {
      const pids = bench.pids();
      samples.push({
        atS: Math.round((performance.now() - startedAt) / 1000),
        p99Ms: { 'catalog reads': p99(windows.catalog), 'order creation': p99(windows.orders) },
        rssMiB: Object.fromEntries(Object.entries(pids).map(([service, pid]) => [service, rssMiB(pid)])),
      });
      windows.catalog = [];
      windows.orders = [];
      const last = samples.at(-1)!;
      log(`  ${last.atS}s: p99 catalog ${last.p99Ms['catalog reads']} ms, orders ${last.p99Ms['order creation']} ms; gateway ${last.rssMiB.gateway?.toFixed(0)} MiB`);
    }, sampleEveryMs);
    const [catalogResult, orderResult] = await Promise.all([catalogLoad, orderLoad]);
    clearInterval(timer);
    counts.errors = catalogResult.errors + catalogResult.timeouts + orderResult.errors + orderResult.timeouts;
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    for (const instance of running) instance.stop();
    await bench.stop(failed);
    await receiver.stop();
  }

  const settled = samples.filter((s) => s.atS * 1000 > Math.min(settleMs, (totalS * 1000) / 5));
  if (settled.length < 4) throw new Error(`only ${settled.length} samples after settling: run the soak for longer`);
  const drifts = [
    ...Object.keys(settled[0]!.p99Ms).map((name) => drift(`p99 ${name}`, 'ms', settled.map((s) => [s.atS, s.p99Ms[name]!]))),
    ...Object.keys(settled[0]!.rssMiB).map((name) => drift(`RSS ${name}`, 'MiB', settled.map((s) => [s.atS, s.rssMiB[name]!]))),
  ];
  const chartFile = join(repoRoot, 'docs', 'soak.svg');
  const load = `1-minute load average ${loadAtStart.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end`;
  const text = render(options, totalS, catalogRate, orderRate, counts, drifts, load);
  process.stdout.write(`\n${text}\n`);
  if (options.report) {
    await drawSoakChart(samples, chartFile, `Soak ${options.duration}: catalog ${catalogRate}/s + orders ${orderRate}/s`);
    await writeSection(join(repoRoot, 'docs', 'benchmarks.md'), 'soak', text);
    log(`chart written to ${chartFile}`);
  }
  const drifting = drifts.filter((d) => d.drifts);
  if (drifting.length > 0) throw new Error(`drift over the soak: ${drifting.map((d) => d.series).join(', ')}`);
  if (counts.errors > 0 || counts.unexpected > 0) throw new Error(`the soak had ${counts.errors} errors and ${counts.unexpected} unexpected answers`);
  return { samples, drifts };
}

function render(options: SoakOptions, totalS: number, catalogRate: number, orderRate: number, counts: { answers: number; errors: number; unexpected: number }, drifts: Drift[], load: string): string {
  const fixed = (n: number) => (Math.abs(n) >= 10 ? n.toFixed(0) : n.toFixed(1));
  return [
    `Measured ${new Date().toISOString()}, Node ${process.version}, ${options.duration} (${totalS} s): catalog reads at ${catalogRate}/s (five filters and pages in turn) and order creation at ${orderRate}/s, ` +
      `compiled services with the production heap (\`${productionNodeOptions.join(' ')}\`), production tracing (\`parentbased_traceidratio\` 0.1, OTLP export), supplier latency 0; ${counts.answers.toLocaleString('en-US')} answers, ` +
      `${counts.errors} errors, ${counts.unexpected} unexpected statuses; ${load}. Chart: [soak.svg](soak.svg).`,
    '',
    `Drift is judged on the samples after the first minute, first half against second half: RSS by the halves' peaks, p99 by their medians; a series drifts when the rise exceeds both ${driftRules.rss.absolute} MiB and ${driftRules.rss.relative * 100} % (RSS) or ${driftRules.p99.absolute} ms and ${driftRules.p99.relative * 100} % (p99). The fitted slope is shown for reference.`,
    '',
    '| series | first half | second half | rise | fitted slope | drift |',
    '| --- | ---: | ---: | ---: | ---: | :---: |',
    ...drifts.map((d) => `| ${d.series} | ${fixed(d.first)} ${d.unit} | ${fixed(d.second)} ${d.unit} | ${d.rise >= 0 ? '+' : ''}${fixed(d.rise)} ${d.unit} | ${d.slopePerMinute >= 0 ? '+' : ''}${d.slopePerMinute.toFixed(2)} ${d.unit}/min | ${d.drifts ? '**yes**' : 'no'} |`),
  ].join('\n');
}
