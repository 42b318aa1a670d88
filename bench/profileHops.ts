/**
 * What each hop of an order costs, from CPU profiles (issue #14): the
 * compiled platform with V8's CPU profiler in every service
 * (./support/cpuProfiler.mjs, SIGUSR2 to start and stop it) over a steady
 * order load and its settling (supplier latency 0, a webhook receiver and an
 * OTLP receiver on loopback), each profile's samples summed by category: our
 * code by area, each library family, node internals, GC, native (see
 * `timeByCategory`), plus the Postgres backends' CPU and transactions.
 *
 * Two figures per cell, both per accepted order: the profile's own sample
 * time, and that share of the process's CPU read from /proc over the same
 * window (all its threads: GC helpers, the libuv pool, compilers). The
 * sampler ticks on wall time, so on a loaded machine a descheduled thread's
 * ticks still land on its stack; shares hold, the /proc column is the one
 * comparable with `bench/cost.ts`.
 *
 *   node --conditions=development --import tsx bench/profileHops.ts \
 *     [--orders 200] [--rate 10] [--sampler ratio|always_on] [--keep DIR]
 *   node --conditions=development --import tsx bench/profileHops.ts --analyse DIR
 *
 * BENCH_NO_BUILD=1 profiles dist/ as it is.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { productionNodeOptions } from '../scripts/deploy/nodeOptions.js';
import { repoRoot } from '../scripts/launcher/supervisor.js';
import pg from 'pg';
import { buildCompiled, log, startBenchPlatform, startScript } from './support/benchPlatform.js';
import { dbCounters } from './support/pgCounters.js';
import { cpuMs } from './support/processStats.js';

interface CallFrame {
  functionName: string;
  url: string;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** What the run leaves beside the profiles, so `--analyse` can cut them again. */
interface RunMeta {
  orders: number;
  sampler: string;
  /** Monotonic µs (the profiles' clock). */
  window: { from: number; to: number };
  pids: Record<string, number>;
  procCpuMs: Record<string, number>;
  /** The Postgres backends of the platform's database over the window (CPU from /proc), and its transactions. */
  postgres?: { cpuMs: number; xacts: number };
}

const libraries: Array<[RegExp, string]> = [
  [/node_modules\/(pg|pg-protocol|pg-pool|pg-types|pgpass|postgres-[a-z]+|pg-connection-string)\//, 'pg'],
  [/node_modules\/@grpc\//, 'grpc-js'],
  [/node_modules\/@bufbuild\/protobuf\//, 'protobuf'],
  [/node_modules\/(@opentelemetry|import-in-the-middle|require-in-the-middle|protobufjs|@protobufjs)\//, 'opentelemetry'],
  [/node_modules\/zod\//, 'zod'],
  [/node_modules\/(pino|pino-std-serializers|sonic-boom|fast-redact|thread-stream|@pinojs)[-a-z]*\//, 'pino'],
  [/node_modules\/(nats|@nats-io)\//, 'nats'],
  [/node_modules\/(qrcode|pngjs|dijkstrajs|encode-utf8)\//, 'qrcode/png'],
  [/node_modules\/(fastify|@fastify|find-my-way|light-my-request|avvio|fast-json-stringify|ajv|secure-json-parse|fast-querystring)\//, 'fastify'],
  [/node_modules\/(ioredis|@ioredis|redis-parser|denque)\//, 'redis'],
  [/node_modules\/(undici)\//, 'undici'],
];

/** The category of a profile node's own (self) time. */
export function categoryOf(frame: CallFrame): string | undefined {
  const { url, functionName } = frame;
  if (functionName === '(idle)') return undefined;
  if (functionName === '(garbage collector)') return 'GC';
  if (functionName === '(program)') return 'native (program)';
  if (functionName === '(root)') return 'native (program)';
  if (url === '') return 'native (builtins)';
  if (url.startsWith('node:')) return 'node internals';
  for (const [pattern, name] of libraries) if (pattern.test(url)) return name;
  const nodeModule = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (nodeModule && !nodeModule[1]!.startsWith('@esim/')) return `lib ${nodeModule[1]}`;
  const own = /\/(services|packages)\/([^/]+)\/(?:dist|src)\/(.+)$/.exec(url);
  if (own) {
    const [, kind, name, file] = own;
    const area = file!.replace(/\.(js|ts|mjs)$/, '').split('/').slice(0, 2).join('/');
    return kind === 'services' ? `own: ${area}` : `@esim/${name}: ${area}`;
  }
  return 'other';
}

/** Categories that say where the runtime was, not who asked it to be there. */
const runtime = new Set(['node internals', 'native (builtins)', 'native (program)', 'GC', 'other']);

/**
 * Stacks through these frames are also counted whole (inclusive), as hops
 * that span libraries: the outbox relay, a saga consumer's message, the QR.
 */
const hops: Array<[RegExp, string]> = [
  [/packages\/events\/(dist|src)\/outbox\.[jt]s tick$/, 'relay tick (incl.)'],
  [/packages\/events\/(dist|src)\/outbox\.[jt]s enqueueEvent$/, 'enqueueEvent (incl.)'],
  [/packages\/events\/(dist|src)\/consumer\.[jt]s (process|traced)$/, 'consumer message (incl.)'],
  [/(services\/orders\/(dist|src)\/domain\/qrCode\.[jt]s|node_modules\/(qrcode|pngjs)\/.*) /, 'QR rendering (incl.)'],
];

/**
 * Time (µs) of the samples inside [from, to] (idle excluded), by category:
 * a sample in node internals or a V8 builtin counts for the nearest caller
 * that is a library or our code (pg's socket writes are pg's), so each
 * category is what that code costs with the runtime work it causes. GC and
 * native (program) time stay apart. `hops` holds the inclusive markers.
 */
export function timeByCategory(profile: CpuProfile, from: number, to: number): { categories: Map<string, number>; hops: Map<string, number> } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const categoryById = new Map<number, string | undefined>();
  const hopById = new Map<number, string[]>();
  const resolve = (id: number): string | undefined => {
    if (categoryById.has(id)) return categoryById.get(id);
    const leaf = categoryOf(byId.get(id)!.callFrame);
    let category = leaf;
    if (leaf !== undefined && runtime.has(leaf) && leaf !== 'GC' && leaf !== 'native (program)') {
      for (let up = parent.get(id); up !== undefined; up = parent.get(up)) {
        const c = categoryOf(byId.get(up)!.callFrame);
        if (c !== undefined && !runtime.has(c)) {
          category = c;
          break;
        }
      }
    }
    categoryById.set(id, category);
    return category;
  };
  const hopsOf = (id: number): string[] => {
    const known = hopById.get(id);
    if (known) return known;
    const frame = byId.get(id)!.callFrame;
    const own = hops.filter(([pattern]) => pattern.test(`${frame.url} ${frame.functionName}`)).map(([, name]) => name);
    const up = parent.get(id);
    const all = [...new Set([...own, ...(up === undefined ? [] : hopsOf(up))])];
    hopById.set(id, all);
    return all;
  };
  const categories = new Map<string, number>();
  const hopTime = new Map<string, number>();
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    if (t < from || t > to) continue;
    // A sample stands for the interval until the next one (as DevTools counts it).
    const dt = profile.timeDeltas[i + 1] ?? 0;
    const id = profile.samples[i]!;
    const category = resolve(id);
    if (category === undefined) continue;
    categories.set(category, (categories.get(category) ?? 0) + dt);
    for (const hop of hopsOf(id)) hopTime.set(hop, (hopTime.get(hop) ?? 0) + dt);
  }
  return { categories, hops: hopTime };
}

/** Reads every profile of a run, keeps the services' (by pid) and tables them. */
export async function analyse(dir: string): Promise<string> {
  const meta = JSON.parse(await readFile(join(dir, 'meta.json'), 'utf8')) as RunMeta;
  const byPid = new Map(Object.entries(meta.pids).map(([name, pid]) => [pid, name]));
  const rows: Array<{ service: string; procMs: number; profileMs: number; categories: Map<string, number>; hops: Map<string, number> }> = [];
  for (const file of (await readdir(dir)).filter((f) => f.endsWith('.cpuprofile'))) {
    const pid = Number(/\.(\d+)\.cpuprofile$/.exec(file)?.[1]);
    const service = byPid.get(pid);
    if (!service) continue;
    const profile = JSON.parse(await readFile(join(dir, file), 'utf8')) as CpuProfile;
    const { categories, hops: hopTime } = timeByCategory(profile, meta.window.from, meta.window.to);
    const profileUs = [...categories.values()].reduce((a, b) => a + b, 0);
    rows.push({ service, procMs: meta.procCpuMs[service] ?? NaN, profileMs: profileUs / 1000, categories, hops: hopTime });
  }
  rows.sort((a, b) => b.procMs - a.procMs);
  const n = meta.orders;
  const lines: string[] = [
    `${n} orders, sampler ${meta.sampler}, window ${((meta.window.to - meta.window.from) / 1e6).toFixed(1)} s (load and settling).`,
    '',
    '| service | CPU/order, /proc (ms) | sampled/order (ms) | where it goes: ms per order (/proc-scaled), top categories |',
    '|---|---:|---:|---|',
  ];
  const totals = new Map<string, number>();
  const hopTotals = new Map<string, number>();
  for (const row of rows) {
    const scale = row.profileMs > 0 ? row.procMs / row.profileMs : 0;
    const top = [...row.categories].sort((a, b) => b[1] - a[1]);
    for (const [c, us] of top) totals.set(c, (totals.get(c) ?? 0) + (us / 1000) * scale);
    for (const [h, us] of row.hops) hopTotals.set(h, (hopTotals.get(h) ?? 0) + (us / 1000) * scale);
    const shown = top
      .filter(([, us]) => (us / 1000 / n) * scale >= 0.2)
      .slice(0, 10)
      .map(([c, us]) => `${c} ${((us / 1000 / n) * scale).toFixed(1)}`)
      .join('; ');
    lines.push(`| ${row.service} | ${(row.procMs / n).toFixed(1)} | ${(row.profileMs / n).toFixed(1)} | ${shown} |`);
  }
  // Library and runtime families summed over every service: the hop view across processes.
  const families = new Map<string, number>();
  for (const [c, ms] of totals) {
    const family = c.startsWith('own: ') ? 'our services (own code)' : c.startsWith('@esim/') ? c.split(':')[0]! : c;
    families.set(family, (families.get(family) ?? 0) + ms);
  }
  lines.push(
    '',
    `All Node services, by category (ms per order, /proc-scaled): ${[...families]
      .sort((a, b) => b[1] - a[1])
      .filter(([, ms]) => ms / n >= 0.1)
      .map(([c, ms]) => `${c} ${(ms / n).toFixed(1)}`)
      .join('; ')}.`,
    '',
    ...(meta.postgres
      ? [`Postgres backends of the platform's database (/proc, no profile): ${(meta.postgres.cpuMs / n).toFixed(1)} ms CPU and ${(meta.postgres.xacts / n).toFixed(1)} transactions per order.`]
      : []),
    '',
    `Across stacks (inclusive of what they call synchronously, not of the I/O callbacks that answer them; every service, ms per order /proc-scaled): ${[...hopTotals]
      .sort((a, b) => b[1] - a[1])
      .map(([h, ms]) => `${h} ${(ms / n).toFixed(1)}`)
      .join('; ')}.`,
  );
  return lines.join('\n');
}

function placeOrder(publicUrl: string, auth: Record<string, string>, planId: string, id: string): Promise<number> {
  return fetch(`${publicUrl}/api/v1/partner/orders`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ clientRequestId: id, planId, email: 'bench@example.com', phoneNumber: '+33612345678' }),
  }).then(async (r) => (await r.arrayBuffer(), r.status));
}

export async function profileHops(options: { orders: number; rate: number; sampler: 'ratio' | 'always_on'; keep?: string }): Promise<string> {
  if (!process.env.BENCH_NO_BUILD) buildCompiled();
  const dir = options.keep ?? (await mkdtemp(join(tmpdir(), 'esim-profiles-')));
  await mkdir(dir, { recursive: true });
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
  const otlp = await startScript('otlpReceiver.ts');
  const sampler: { OTEL_TRACES_SAMPLER: string; OTEL_TRACES_SAMPLER_ARG?: string } =
    options.sampler === 'ratio' ? { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' } : { OTEL_TRACES_SAMPLER: 'always_on' };
  const bench = await startBenchPlatform(
    {
      SUPPLIER_LATENCY_MS: '0',
      WEBHOOK_ALLOW_INSECURE_URLS: 'true',
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${otlp.port}`,
      OTEL_TRACES_SAMPLER: sampler.OTEL_TRACES_SAMPLER,
      ...(sampler.OTEL_TRACES_SAMPLER_ARG ? { OTEL_TRACES_SAMPLER_ARG: sampler.OTEL_TRACES_SAMPLER_ARG } : {}),
      // Node 20 refuses --cpu-prof in NODE_OPTIONS: a preload starts and stops the profiler on SIGUSR2.
      NODE_OPTIONS: [...productionNodeOptions, `--import=${join(repoRoot, 'bench', 'support', 'cpuProfiler.mjs')}`].join(' '),
      CPU_PROFILE_DIR: dir,
    },
    { mode: 'compiled' },
  );
  let failed = false;
  let meta: RunMeta | undefined;
  const database = new URL(bench.databaseUrl).pathname.slice(1);
  const pool = new pg.Pool({ connectionString: bench.databaseUrl, max: 1 });
  // Backends come and go with the pools' idle timeouts: each is read while it lives, from its first reading on.
  const backends = new Map<number, { first: number; last: number }>();
  let ownReads = 0;
  const readBackends = async (fresh: boolean) => {
    ownReads += 1;
    const { rows } = await pool.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [database]);
    for (const { pid } of rows) {
      try {
        const now = cpuMs(pid);
        const known = backends.get(pid);
        backends.set(pid, { first: known?.first ?? (fresh ? now : 0), last: now });
      } catch {
        // gone between the query and the read
      }
    }
  };
  try {
    const { partnerId, apiKey } = await bench.onboard();
    const asAdmin = { 'content-type': 'application/json', authorization: `Bearer ${bench.adminToken}` };
    const patched = await fetch(`${bench.adminUrl}/admin/v1/partners/${partnerId}`, { method: 'PATCH', headers: asAdmin, body: JSON.stringify({ webhookUrl: receiverUrl }) });
    if (patched.status !== 200) throw new Error(`webhook URL answered ${patched.status}`);
    const topup = await fetch(`${bench.adminUrl}/admin/v1/partners/${partnerId}/wallet/topups`, {
      method: 'POST',
      headers: asAdmin,
      body: JSON.stringify({ amount: 100_000_000, reference: 'BENCH-PROFILE' }),
    });
    if (topup.status !== 201) throw new Error(`top-up answered ${topup.status}`);
    const auth = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
    const plans = (await (await fetch(`${bench.publicUrl}/api/v1/partner/catalog?limit=1`, { headers: auth })).json()) as { data: Array<{ id: string }> };
    for (let i = 0; i < 20; i++) await placeOrder(bench.publicUrl, auth, plans.data[0]!.id, `warm-${i}`);
    while (received < 20) await new Promise((r) => setTimeout(r, 250));
    await new Promise((r) => setTimeout(r, 2_000));

    log(`profile: ${options.orders} orders at ${options.rate}/s, sampler ${options.sampler}`);
    received = 0;
    const pids = bench.pids();
    const xacts0 = (await dbCounters(pool, database)).xacts;
    await readBackends(true);
    ownReads = 0;
    const watching = setInterval(() => void readBackends(false).catch(() => undefined), 500);
    const cpu0 = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuMs(pid)]));
    for (const pid of Object.values(pids)) process.kill(pid, 'SIGUSR2');
    const from = Number(process.hrtime.bigint() / 1000n);
    const startedAt = Date.now();
    const placed: Array<Promise<number>> = [];
    for (let i = 0; i < options.orders; i++) {
      await new Promise((r) => setTimeout(r, Math.max(0, startedAt + (i * 1000) / options.rate - Date.now())));
      placed.push(placeOrder(bench.publicUrl, auth, plans.data[0]!.id, `hop-${i}`));
    }
    const accepted = (await Promise.all(placed)).filter((s) => s === 201).length;
    if (accepted < options.orders * 0.9) throw new Error(`only ${accepted} of ${options.orders} orders were accepted`);
    const deadline = Date.now() + 180_000;
    while (received < accepted) {
      if (Date.now() > deadline) throw new Error(`not settled after 180 s (${received}/${accepted})`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const to = Number(process.hrtime.bigint() / 1000n);
    const procCpuMs = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuMs(pid) - cpu0[name]!]));
    for (const pid of Object.values(pids)) process.kill(pid, 'SIGUSR2');
    clearInterval(watching);
    await readBackends(false);
    const postgres = { cpuMs: [...backends.values()].reduce((sum, b) => sum + b.last - b.first, 0), xacts: (await dbCounters(pool, database)).xacts - xacts0 - ownReads };
    const written = Date.now() + 60_000;
    while ((await readdir(dir)).filter((f) => f.endsWith('.cpuprofile')).length < Object.keys(pids).length && Date.now() < written) await new Promise((r) => setTimeout(r, 250));
    meta = { orders: accepted, sampler: sampler.OTEL_TRACES_SAMPLER + (sampler.OTEL_TRACES_SAMPLER_ARG ? ` ${sampler.OTEL_TRACES_SAMPLER_ARG}` : ''), window: { from, to }, pids, procCpuMs, postgres };
    await writeFile(join(dir, 'meta.json'), JSON.stringify(meta, null, 2));
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    await pool.end();
    await bench.stop(failed);
    await otlp.stop();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
  const text = await analyse(dir);
  if (!options.keep) await rm(dir, { recursive: true, force: true });
  return text;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      orders: { type: 'string', default: '200' },
      rate: { type: 'string', default: '10' },
      sampler: { type: 'string', default: 'ratio' },
      keep: { type: 'string' },
      analyse: { type: 'string' },
    },
  });
  const text = values.analyse
    ? await analyse(values.analyse)
    : await profileHops({ orders: Number(values.orders), rate: Number(values.rate), sampler: values.sampler === 'always_on' ? 'always_on' : 'ratio', keep: values.keep });
  process.stdout.write(`${text}\n`);
}
