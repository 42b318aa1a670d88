/**
 * The hot-path benchmark: starts the real platform (every service in its own
 * process, compiled as the image runs it, its own database, NATS namespace
 * and Redis prefix), onboards a partner the way a partner is onboarded (the
 * key is read from the approval e-mail), then loads, one after another on
 * the same machine, with 50 connections:
 *   - a bare fastify hello-world in a child process: the ceiling of one Node
 *     process answering HTTP on this machine (the baseline);
 *   - GET /api/v1/partner/catalog?country=FR and GET /api/v1/partner/catalog
 *     with the real key (authenticated, rate-limited);
 *   - the same call without a key (401) and the gateway's /healthz.
 * It does so under several tracing settings (the production sampler with an
 * OTLP exporter, every span sampled, no exporter), a fresh platform each,
 * reads every service's RSS after the load, writes the tables and a verdict
 * against the targets into docs/benchmarks.md, and removes everything it
 * created.
 */
import autocannon, { type Instance, type Result } from 'autocannon';
import { execFileSync } from 'node:child_process';
import { cpus, loadavg, release } from 'node:os';
import { join } from 'node:path';
import { repoRoot, type LaunchMode } from '../scripts/launcher/supervisor.js';
import { buildCompiled, log, startBenchPlatform, startScript, writeSection } from './support/benchPlatform.js';
import { cpuMs, rssMiB } from './support/processStats.js';

export type SettingName = 'production' | 'allSampled' | 'noExporter' | 'tracingOff';
type TargetKey = 'hello' | 'catalogFr' | 'catalogAll' | 'unauthenticated' | 'healthz';

export interface CatalogBenchOptions {
  /** Measured seconds per target. */
  duration: number;
  /** Warm-up seconds per target, not measured. */
  warmup: number;
  connections: number;
  settings: SettingName[];
  mode: LaunchMode;
  /** Extra environment for every service (e.g. NODE_OPTIONS), to try a setting before it ships. */
  serviceEnv: Record<string, string>;
  /** Where the results section is written; undefined prints only. */
  reportFile: string | undefined;
}

const defaults: CatalogBenchOptions = {
  duration: 10,
  warmup: 2,
  connections: 50,
  settings: ['production', 'allSampled', 'noExporter', 'tracingOff'],
  mode: 'compiled',
  serviceEnv: {},
  reportFile: join(repoRoot, 'docs', 'benchmarks.md'),
};

interface Setting {
  label: string;
  env: Record<string, string>;
  exporter: boolean;
  targets: TargetKey[];
}

/** The production deployment samples 10 % of new traces (parent-based) and exports them over OTLP/HTTP. */
const settings: Record<SettingName, Setting> = {
  production: {
    label: 'production tracing: `parentbased_traceidratio` 0.1, OTLP/HTTP (protobuf) export to a local receiver',
    env: { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' },
    exporter: true,
    targets: ['catalogFr', 'catalogAll', 'unauthenticated', 'healthz'],
  },
  allSampled: {
    label: 'every span sampled (`parentbased_always_on`), OTLP/HTTP export',
    env: { OTEL_TRACES_SAMPLER: 'parentbased_always_on' },
    exporter: true,
    targets: ['catalogFr', 'catalogAll'],
  },
  noExporter: {
    label: 'no exporter (no OTLP endpoint; spans still made by the default sampler, then dropped)',
    env: {},
    exporter: false,
    targets: ['catalogFr', 'catalogAll'],
  },
  tracingOff: {
    label: 'tracing off (`OTEL_SDK_DISABLED=true`: no span made at all; metrics as usual)',
    env: { OTEL_SDK_DISABLED: 'true' },
    exporter: false,
    targets: ['catalogFr', 'catalogAll', 'unauthenticated', 'healthz'],
  },
};

interface Target {
  key: TargetKey;
  name: string;
  url: string;
  headers?: Record<string, string>;
  status: number;
  /** Response body size, measured once before the run. */
  bodyBytes?: number;
  /** Plans in one answer, for the catalog targets. */
  plans?: number;
}

export interface Measured {
  setting: SettingName;
  target: Target;
  result: Result;
  /** Every answer had the expected status and nothing failed. */
  valid: boolean;
  /** CPU time (user + system) per measured answer, in microseconds, of the gateway and the catalog service. */
  cpuUsPerRequest?: { gateway: number; catalog: number };
  /** Hello-world requests/s measured just before this target: the machine is shared, so each target has its own baseline. */
  baseline?: number;
  /** The gateway's own view of the measured seconds, from its /metrics: event-loop delay and GC pauses. */
  runtime?: GatewayRuntime;
}

export interface GatewayRuntime {
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
  /** GC pauses during the measured seconds: how many, their total and their share of the wall time. */
  gcPauses: number;
  gcTotalMs: number;
  gcShare: number;
}

/** What the gateway's /metrics says now: the event-loop delay since the previous scrape, and the GC pause sums so far. */
async function scrapeRuntime(metricsUrl: string): Promise<{ loopP99: number; loopMax: number; gcCount: number; gcSum: number }> {
  const text = await (await fetch(metricsUrl)).text();
  const value = (name: string) => [...text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm'))].reduce((sum, m) => sum + Number(m[1]), 0);
  return {
    loopP99: value('nodejs_eventloop_delay_p99_seconds') * 1000,
    loopMax: value('nodejs_eventloop_delay_max_seconds') * 1000,
    gcCount: value('nodejs_gc_duration_seconds_count'),
    gcSum: value('nodejs_gc_duration_seconds_sum') * 1000,
  };
}

export interface CatalogBenchResult {
  measured: Measured[];
  /** RSS (MiB) of each service right after the load of each setting. */
  rssAfterLoad: Partial<Record<SettingName, Record<string, number>>>;
  exports: Partial<Record<SettingName, { requests: number; bytes: number }>>;
}

export async function catalogBenchmark(overrides: Partial<CatalogBenchOptions> = {}): Promise<CatalogBenchResult> {
  const options = { ...defaults, ...overrides };
  const loadAtStart = loadavg()[0]!;
  let interrupted = false;
  let running: Instance | undefined;
  const stopOnSignal = () => {
    log('interrupted; cleaning up…');
    interrupted = true;
    running?.stop();
  };
  process.once('SIGINT', stopOnSignal);

  const load = async (target: Target, pids: Record<string, number>, duration = options.duration, metricsUrl?: string) => {
    if (interrupted) throw new Error('interrupted');
    log(`  ${target.name}: ${options.warmup}s warm-up, ${duration}s measured, ${options.connections} connections`);
    running = autocannon({
      url: target.url,
      headers: target.headers,
      connections: options.connections,
      duration,
      warmup: { connections: options.connections, duration: options.warmup },
      timeout: 10,
    });
    // CPU is read around the measured part only: the warm-up runs first, in the same instance.
    let before: { gateway: number; catalog: number } | undefined;
    let runtimeBefore: Promise<Awaited<ReturnType<typeof scrapeRuntime>> | undefined> = Promise.resolve(undefined);
    const measuredFrom = { at: 0 };
    const warmedUp = setTimeout(() => {
      before = { gateway: cpuMs(pids.gateway!), catalog: cpuMs(pids.catalog!) };
      measuredFrom.at = performance.now();
      // Also resets the gateway's event-loop delay histogram, so the next scrape covers the measured seconds only.
      if (metricsUrl) runtimeBefore = scrapeRuntime(metricsUrl).catch(() => undefined);
    }, options.warmup * 1000);
    const result = await running;
    clearTimeout(warmedUp);
    const start = await runtimeBefore;
    const end = metricsUrl && start ? await scrapeRuntime(metricsUrl).catch(() => undefined) : undefined;
    const runtime: GatewayRuntime | undefined =
      start && end
        ? {
            loopDelayP99Ms: end.loopP99,
            loopDelayMaxMs: end.loopMax,
            gcPauses: end.gcCount - start.gcCount,
            gcTotalMs: end.gcSum - start.gcSum,
            gcShare: (end.gcSum - start.gcSum) / (performance.now() - measuredFrom.at),
          }
        : undefined;
    const perRequest = (service: 'gateway' | 'catalog') => ((cpuMs(pids[service]!) - (before?.[service] ?? 0)) * 1000) / result.requests.total;
    if (interrupted) throw new Error('interrupted');
    const expected = result.statusCodeStats?.[target.status]?.count ?? 0;
    const cpuUsPerRequest = target.key === 'hello' || !before ? undefined : { gateway: perRequest('gateway'), catalog: perRequest('catalog') };
    return { result, valid: result.errors === 0 && result.timeouts === 0 && expected === result.requests.total, cpuUsPerRequest, ...(runtime ? { runtime } : {}) };
  };

  const buildMs = options.mode === 'compiled' ? buildCompiled() : 0;
  if (options.mode === 'compiled') log(`npm run build: ${(buildMs / 1000).toFixed(0)} s`);
  const hello = await startScript('hello.ts');
  const receiver = await startScript('otlpReceiver.ts');
  const receiverUrl = `http://127.0.0.1:${receiver.port}`;
  const exportStats = async () => (await (await fetch(`${receiverUrl}/stats`)).json()) as { requests: number; bytes: number };
  const outcome: CatalogBenchResult = { measured: [], rssAfterLoad: {}, exports: {} };
  try {
    for (const name of options.settings) {
      const setting = settings[name];
      log(`setting ${name}: ${setting.label}`);
      const bench = await startBenchPlatform(
        { ...options.serviceEnv, ...setting.env, ...(setting.exporter ? { OTEL_EXPORTER_OTLP_ENDPOINT: receiverUrl } : {}) },
        { mode: options.mode },
      );
      let failed = false;
      try {
        const { apiKey } = await bench.onboard();
        const auth = { authorization: `Bearer ${apiKey}` };
        const all: Record<TargetKey, Target> = {
          hello: { key: 'hello', name: 'fastify hello-world (baseline)', url: `http://127.0.0.1:${hello.port}/`, status: 200 },
          catalogFr: { key: 'catalogFr', name: 'GET /api/v1/partner/catalog?country=FR', url: `${bench.publicUrl}/api/v1/partner/catalog?country=FR`, headers: auth, status: 200 },
          catalogAll: { key: 'catalogAll', name: 'GET /api/v1/partner/catalog (limit 50)', url: `${bench.publicUrl}/api/v1/partner/catalog`, headers: auth, status: 200 },
          unauthenticated: { key: 'unauthenticated', name: 'GET /api/v1/partner/catalog?country=FR, no key (401)', url: `${bench.publicUrl}/api/v1/partner/catalog?country=FR`, status: 401 },
          healthz: { key: 'healthz', name: 'GET /healthz (gateway)', url: `${bench.publicUrl}/healthz`, status: 200 },
        };
        const targets = [...(outcome.measured.length === 0 ? (['hello'] as const) : []), ...setting.targets].map((key) => all[key]);
        for (const target of targets) await probe(target);
        // A fresh platform first runs JIT-cold: a few seconds of the first gateway target, not measured, for every setting alike.
        const first = targets.find((t) => t.key !== 'hello')!;
        await autocannon({ url: first.url, headers: first.headers, connections: options.connections, duration: 5, timeout: 10 });
        const exportedBefore = await exportStats();
        for (const target of targets) {
          const baseline = target.key === 'hello' ? undefined : (await load(all.hello, bench.pids(), baselineSeconds)).result.requests.average;
          const metricsUrl = target.key === 'hello' ? undefined : `${bench.publicUrl}/metrics`;
          outcome.measured.push({ setting: name, target, ...(await load(target, bench.pids(), options.duration, metricsUrl)), baseline });
        }
        const exportedAfter = await exportStats();
        if (setting.exporter) outcome.exports[name] = { requests: exportedAfter.requests - exportedBefore.requests, bytes: exportedAfter.bytes - exportedBefore.bytes };
        outcome.rssAfterLoad[name] = Object.fromEntries(Object.entries(bench.pids()).map(([service, pid]) => [service, rssMiB(pid)]));
      } catch (error) {
        failed = true;
        throw error;
      } finally {
        await bench.stop(failed);
      }
    }
  } finally {
    process.removeListener('SIGINT', stopOnSignal);
    await hello.stop();
    await receiver.stop();
  }

  const text = render(options, outcome, `1-minute load average ${loadAtStart.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end`);
  process.stdout.write(`\n${text}\n`);
  if (options.reportFile) {
    await writeSection(options.reportFile, 'results', text);
    log(`results written to ${options.reportFile}`);
  }
  const invalid = outcome.measured.filter((m) => !m.valid);
  if (invalid.length > 0) throw new Error(`not a valid measurement (errors or unexpected statuses): ${invalid.map((m) => `${m.setting} ${m.target.name}`).join(', ')}`);
  return outcome;
}

/** One request before the load: the target must answer its status, or the benchmark would measure something else. */
async function probe(target: Target): Promise<void> {
  const answer = await fetch(target.url, { headers: target.headers });
  const text = await answer.text();
  if (answer.status !== target.status) throw new Error(`${target.name} answered ${answer.status} before the run: ${text}`);
  target.bodyBytes = Buffer.byteLength(text);
  const data = (JSON.parse(text) as { data?: unknown[] }).data;
  if (Array.isArray(data)) target.plans = data.length;
}

const settingShort: Record<SettingName, string> = { production: 'production', allSampled: 'every span sampled', noExporter: 'no exporter', tracingOff: 'tracing off' };
/** Seconds of hello-world measured before each target, as that target's baseline. */
const baselineSeconds = 5;
const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const table = (header: string[], align: string[], rows: string[][]) => [header, align, ...rows].map((row) => `| ${row.join(' | ')} |`).join('\n');

/** The targets of the issue, checked against the hello-world of the same run. */
export function verdicts(outcome: CatalogBenchResult): Array<{ goal: string; measured: string; met: boolean }> {
  const measuredOf = (key: TargetKey) => outcome.measured.find((m) => m.setting === 'production' && m.target.key === key);
  const of = (key: TargetKey) => measuredOf(key)?.result;
  const shareOf = (key: TargetKey) => (measuredOf(key)?.result.requests.average ?? NaN) / (measuredOf(key)?.baseline ?? NaN);
  const lines: Array<{ goal: string; measured: string; met: boolean }> = [];
  for (const key of ['catalogFr', 'catalogAll'] as const) {
    const result = of(key);
    if (!result) continue;
    const share = shareOf(key);
    const label = key === 'catalogFr' ? '`?country=FR`' : 'whole catalog';
    lines.push({ goal: `catalog ${label}: ≥ 20 % of hello-world`, measured: `${Math.round(share * 100)} %`, met: share >= 0.2 });
    lines.push({ goal: `catalog ${label}: p99 ≤ 15 ms`, measured: `${result.latency.p99} ms`, met: result.latency.p99 <= 15 });
  }
  for (const key of ['unauthenticated', 'healthz'] as const) {
    if (!of(key)) continue;
    const share = shareOf(key);
    lines.push({ goal: `${key === 'healthz' ? '/healthz' : '401 without a key'}: ≥ 50 % of hello-world`, measured: `${Math.round(share * 100)} %`, met: share >= 0.5 });
  }
  const gateway = outcome.rssAfterLoad.production?.gateway;
  if (gateway !== undefined) lines.push({ goal: 'gateway RSS after the load ≤ 200 MiB', measured: `${gateway.toFixed(0)} MiB`, met: gateway <= 200 });
  return lines;
}

function render(options: CatalogBenchOptions, outcome: CatalogBenchResult, load: string): string {
  const us = (value: number | undefined) => (value === undefined ? '' : `${integer.format(value)} µs`);
  const ms = (value: number) => (value >= 10 ? value.toFixed(0) : value.toFixed(1));
  const rows = outcome.measured.map(({ setting, target, result, valid, cpuUsPerRequest, baseline, runtime }) => [
    setting === 'production' || target.key === 'hello' ? target.name : `${target.name}, ${settingShort[setting]}`,
    integer.format(result.requests.average),
    baseline === undefined ? '' : integer.format(baseline),
    baseline === undefined ? '100 %' : `${Math.round((result.requests.average / baseline) * 100)} %`,
    `${result.latency.p50} ms`,
    `${result.latency.p99} ms`,
    `${result.errors} (${result.timeouts} timeouts)`,
    `${integer.format(result.requests.total)} × ${target.status}${valid ? '' : ' ⚠ not all'}`,
    target.plans === undefined ? `${target.bodyBytes} B` : `${integer.format(target.bodyBytes ?? 0)} B, ${target.plans} plans`,
    us(cpuUsPerRequest?.gateway),
    us(cpuUsPerRequest?.catalog),
    runtime ? `${ms(runtime.loopDelayP99Ms)} / ${ms(runtime.loopDelayMaxMs)} ms` : '',
    runtime ? `${integer.format(runtime.gcPauses)}, ${ms(runtime.gcTotalMs)} ms (${(runtime.gcShare * 100).toFixed(1)} %)` : '',
  ]);
  const results = table(
    ['target', 'requests/s (avg)', 'hello-world just before', 'vs hello-world', 'p50', 'p99', 'errors', 'answers', 'body', 'gateway CPU / request', 'catalog CPU / request', 'gateway event-loop delay p99 / max', 'gateway GC pauses (total, share of time)'],
    ['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:'],
    rows,
  );
  const services = Object.keys(outcome.rssAfterLoad[options.settings[0]!] ?? {});
  const rss = table(
    ['service', ...options.settings.map((s) => `RSS after the load, ${s}`)],
    ['---', ...options.settings.map(() => '---:')],
    services.map((service) => [service, ...options.settings.map((s) => `${(outcome.rssAfterLoad[s]?.[service] ?? NaN).toFixed(0)} MiB`)]),
  );
  const goals = table(
    ['target (issue)', 'measured', 'met'],
    ['---', '---:', ':---:'],
    verdicts(outcome).map((v) => [v.goal, v.measured, v.met ? 'yes' : '**no**']),
  );
  const exported = Object.entries(outcome.exports)
    .map(([setting, e]) => `${setting}: ${integer.format(e.requests)} export requests, ${(e.bytes / 2 ** 20).toFixed(1)} MiB`)
    .join('; ');
  const cpu = cpus();
  return [
    `Measured ${new Date().toISOString()} on ${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${release()}, Node ${process.version}, ` +
      `commit ${commit()}; services ${options.mode === 'compiled' ? 'compiled (dist/, as the image runs them)' : 'from sources (tsx)'}` +
      `${Object.keys(options.serviceEnv).length > 0 ? ` with ${Object.entries(options.serviceEnv).map(([k, v]) => `${k}=${v}`).join(' ')}` : ''}; ` +
      `autocannon 9, ${options.connections} connections, ${options.warmup} s warm-up then ${options.duration} s measured per target, one target at a time, each fresh platform first loaded 5 s unmeasured; ${load}.`,
    '',
    ...options.settings.map((s, i) => `${i === 0 ? 'Settings, one fresh platform each: ' : ''}**${s}**: ${settings[s].label}.`),
    '',
    results,
    '',
    `Each target is compared with a ${baselineSeconds} s hello-world measured just before it (the machine is shared: its other load moves both alike); the first row is the full-length hello-world. Latency percentiles are autocannon's, in whole milliseconds. CPU per request is the process's user + system time (/proc) over the measured seconds divided by the answers: unlike requests/s it barely moves with the machine's other load. The gateway's event-loop delay (p99 and max over the measured seconds) and GC pauses come from its own /metrics, scraped when the measured seconds start and end. Spans received by the local OTLP receiver during the load: ${exported || 'none expected'}.`,
    '',
    rss,
    '',
    goals,
  ].join('\n');
}

function commit(): string {
  try {
    const sha = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: repoRoot, encoding: 'utf8' }).trim() !== '';
    return dirty ? `${sha} + uncommitted changes` : sha;
  } catch {
    return 'unknown';
  }
}
