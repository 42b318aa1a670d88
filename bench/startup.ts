/**
 * Startup benchmark: for every entry of the service list, how long from
 * spawn to the first 200 on /readyz, and how much memory (RSS) the process
 * holds after 10 s idle, run two ways:
 *   - sources: `node --conditions=development --import tsx --import @esim/telemetry/register src/main.ts` (npm start);
 *   - compiled: `node --import @esim/telemetry/register dist/main.js` (the image), after `npm run build`.
 * Each service runs alone against its own throw-away database and namespace
 * with NODE_ENV=production. A first, unmeasured start migrates the schema and
 * warms tsx's transform cache, so both ways are measured as a restart is.
 * Writes the table into docs/benchmarks.md; `npm run bench` runs it, or
 * `node --conditions=development --import tsx bench/startup.ts` alone.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureDatabase } from '@esim/postgres';
import { grpcIdentityEnv } from '../scripts/launcher/platform.js';
import { freePorts } from '../scripts/launcher/ports.js';
import { addressEnv, portEnv, readinessPort, services, type ServiceEntry } from '../scripts/launcher/services.js';
import { productionNodeOptions } from '../scripts/deploy/nodeOptions.js';
import { repoRoot } from '../scripts/launcher/supervisor.js';
import { cleanUp } from '../test/e2e/support/cleanUp.js';
import { cpuMs, median, rssMiB } from './support/processStats.js';

const modes = {
  sources: ['--conditions=development', '--import', 'tsx', '--import', '@esim/telemetry/register', 'src/main.ts'],
  compiled: ['--import', '@esim/telemetry/register', 'dist/main.js'],
} as const;
type Mode = keyof typeof modes;

/** V8 shrinks a young generation grown during startup once the process has idled a while (its memory reducer); measured after this long. */
const settledIdleMs = 45_000;

export interface StartupOptions {
  /** Measured starts per service and way; the median is reported. */
  runs: number;
  /** How long the last run idles before its RSS is read. */
  idleMs: number;
  /** Where the table is written; undefined prints only. */
  reportFile: string | undefined;
  /** Only these services (all when unset), to try a change on a few. */
  services?: string[];
}

const defaults: StartupOptions = { runs: 3, idleMs: 10_000, reportFile: join(repoRoot, 'docs', 'benchmarks.md') };
const readyTimeoutMs = 60_000;
const log = (line: string) => process.stderr.write(`${line}\n`);

interface Measured {
  name: string;
  startupMs: Record<Mode, number[]>;
  /** CPU (user + system) the process used until ready: unlike wall time, barely moved by other load on the machine. */
  cpuMs: Record<Mode, number[]>;
  rssMiB: Partial<Record<Mode | 'settled', number>>;
  skipped?: string;
}

/** Starts one service, resolves with spawn → /readyz 200 in ms and, when asked, its RSS after idling. */
async function startOnce(entry: ServiceEntry, mode: Mode | 'settled', env: NodeJS.ProcessEnv, idleMs: number | undefined) {
  const ports = (await freePorts())[entry.name]!;
  const readyUrl = `http://127.0.0.1:${readinessPort(entry, ports)}/readyz`;
  const startedAt = performance.now();
  const child = spawn(process.execPath, mode === 'settled' ? [...productionNodeOptions, ...modes.compiled] : [...modes[mode]], {
    cwd: join(repoRoot, 'services', entry.name),
    env: { ...env, ...portEnv(ports), OTEL_SERVICE_NAME: entry.name },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    let ready = false;
    while (!ready) {
      if (child.exitCode !== null) throw new Error(`${entry.name} (${mode}) exited with ${child.exitCode}: ${stderr.slice(-2000)}`);
      if (performance.now() - startedAt > readyTimeoutMs) throw new Error(`${entry.name} (${mode}) not ready within ${readyTimeoutMs} ms`);
      ready = await fetch(readyUrl, { signal: AbortSignal.timeout(1_000) }).then((r) => r.status === 200, () => false);
      if (!ready) await new Promise((r) => setTimeout(r, 25));
    }
    const startupMs = performance.now() - startedAt;
    const cpu = cpuMs(child.pid!);
    if (idleMs === undefined) return { startupMs, cpuMs: cpu };
    await new Promise((r) => setTimeout(r, idleMs));
    return { startupMs, cpuMs: cpu, rssMiB: rssMiB(child.pid!) };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

function table(results: Measured[], options: StartupOptions, built: string, load: string): string {
  const rows = results.map((r) => {
    if (r.skipped) return `| ${r.name} | ${r.skipped} | | | | | | | | | |`;
    const change = (a: number, b: number) => `${b < a ? '−' : '+'}${Math.abs(Math.round((1 - b / a) * 100))} %`;
    const pair = (a: number, b: number, unit: string, digits = 0) => `${a.toFixed(digits)} ${unit} | ${b.toFixed(digits)} ${unit} | ${change(a, b)}`;
    return `| ${r.name} | ${pair(median(r.startupMs.sources), median(r.startupMs.compiled), 'ms')} | ${pair(median(r.cpuMs.sources), median(r.cpuMs.compiled), 'ms')} | ${pair(r.rssMiB.sources ?? NaN, r.rssMiB.compiled ?? NaN, 'MiB')} | ${(r.rssMiB.settled ?? NaN).toFixed(0)} MiB |`;
  });
  return [
    `Measured ${new Date().toISOString()} on ${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}; ${built}`,
    `median of ${options.runs} starts per way after one unmeasured start; RSS after ${options.idleMs / 1000} s idle (one run; the last column: compiled, production heap \`${productionNodeOptions.join(' ')}\`, after ${settledIdleMs / 1000} s idle); ${load}.`,
    '',
    '| service | startup, sources (tsx) | startup, compiled | change | CPU to ready, sources | CPU to ready, compiled | change | idle RSS, sources | idle RSS, compiled | change | idle RSS, compiled, production heap, settled |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
  ].join('\n');
}

async function writeReport(file: string, text: string): Promise<void> {
  const start = '<!-- bench:startup:start -->';
  const end = '<!-- bench:startup:end -->';
  const current = await readFile(file, 'utf8');
  const from = current.indexOf(start);
  const to = current.indexOf(end);
  if (from === -1 || to === -1) throw new Error(`${file} has no ${start} … ${end} section`);
  await writeFile(file, `${current.slice(0, from + start.length)}\n${text}\n${current.slice(to)}`);
}

export async function startupBenchmark(overrides: Partial<StartupOptions> = {}): Promise<Measured[]> {
  const options = { ...defaults, ...overrides };
  const loadAtStart = loadavg()[0]!;
  log('startup: npm run build …');
  const buildStarted = performance.now();
  const build = spawnSync(process.execPath, ['--conditions=development', '--import', 'tsx', 'scripts/build/build.ts'], { cwd: repoRoot, stdio: 'inherit' });
  const built = `\`npm run build\` ${build.status === 0 ? 'took' : 'failed (services without dist/ are skipped) after'} ${((performance.now() - buildStarted) / 1000).toFixed(0)} s`;

  const suffix = randomBytes(4).toString('hex');
  const run = {
    databaseUrl: `postgres://postgres@127.0.0.1:5432/esim_bench_startup_${suffix}`,
    namespace: `benchstart${suffix}`,
    redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    natsUrl: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
  };
  const workDir = await mkdtemp(join(tmpdir(), 'esim-bench-startup-'));
  await ensureDatabase(run.databaseUrl);
  const { NODE_OPTIONS: _ignored, ...inherited } = process.env;
  const sharedEnv: NodeJS.ProcessEnv = {
    ...inherited,
    ...addressEnv(await freePorts()),
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    DATABASE_URL: run.databaseUrl,
    REDIS_URL: run.redisUrl,
    NATS_URL: run.natsUrl,
    PLATFORM_NAMESPACE: run.namespace,
    ADMIN_TOKEN: randomBytes(24).toString('hex'),
    JWT_SECRET: randomBytes(32).toString('base64'),
    DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    // Production has no development default for it (supplier-sim signs its notifications, the gateway checks them).
    SUPPLIER_CALLBACK_SECRET: randomBytes(32).toString('base64url'),
    MAIL_DIR: join(workDir, 'mail'),
  };

  const results: Measured[] = [];
  try {
    for (const entry of services.filter((e) => !options.services || options.services.includes(e.name))) {
      const dir = join(repoRoot, 'services', entry.name);
      const result: Measured = { name: entry.name, startupMs: { sources: [], compiled: [] }, cpuMs: { sources: [], compiled: [] }, rssMiB: {} };
      results.push(result);
      if (!existsSync(join(dir, 'src', 'main.ts'))) result.skipped = 'no src/main.ts yet';
      else if (!existsSync(join(dir, 'dist', 'main.js'))) result.skipped = 'not built';
      if (result.skipped) continue;
      log(`startup: ${entry.name}`);
      // Its gRPC identity (mutual TLS): production mode has no development default either.
      const env = {
        ...sharedEnv,
        ...grpcIdentityEnv(entry.name, sharedEnv),
        // Production's provisioning refuses any upstream but a real SM-DP+ over mutual TLS (#25); its start is measured as development.
        ...(entry.name === 'provisioning' ? { NODE_ENV: 'development' } : {}),
      };
      await startOnce(entry, 'sources', env, undefined);
      for (let i = 0; i < options.runs; i += 1) {
        for (const mode of Object.keys(modes) as Mode[]) {
          const last = i === options.runs - 1;
          const measured = await startOnce(entry, mode, env, last ? options.idleMs : undefined);
          result.startupMs[mode].push(measured.startupMs);
          result.cpuMs[mode].push(measured.cpuMs);
          if (measured.rssMiB !== undefined) result.rssMiB[mode] = measured.rssMiB;
        }
      }
      result.rssMiB.settled = (await startOnce(entry, 'settled', env, settledIdleMs)).rssMiB;
      log(`  sources ${Math.round(median(result.startupMs.sources))} ms, compiled ${Math.round(median(result.startupMs.compiled))} ms`);
    }
  } finally {
    await cleanUp(run).catch((error: Error) => log(`startup: clean-up failed: ${error.message}`));
    await rm(workDir, { recursive: true, force: true });
  }
  const load = `1-minute load average ${loadAtStart.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end`;
  const text = table(results, options, built, load);
  process.stdout.write(`\n${text}\n`);
  if (options.reportFile) await writeReport(options.reportFile, text);
  return results;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await startupBenchmark().catch((error: Error) => {
    process.stderr.write(`startup benchmark failed: ${error.stack ?? error.message}\n`);
    process.exitCode = 1;
  });
}
