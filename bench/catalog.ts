/**
 * The catalog benchmark: starts the real platform (every service in its own
 * process, its own database, NATS namespace and Redis prefix), onboards a
 * partner the way a partner is onboarded (the key is read from the approval
 * e-mail), then loads, one after another on the same machine:
 *   (a) a bare fastify hello-world in a child process: the ceiling of one
 *       Node process answering HTTP on this machine;
 *   (b) GET /api/v1/partner/catalog?country=FR with the real key;
 *   (c) GET /api/v1/partner/catalog (default limit 50, every country).
 * Prints a table, writes it into docs/benchmarks.md, and removes everything
 * it created (database, streams, Redis keys, temporary files).
 */
import autocannon, { type Instance, type Result } from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { cpus, freemem, platform as osPlatform, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { startPlatform, type Platform } from '../scripts/launcher/platform.js';
import { repoRoot } from '../scripts/launcher/supervisor.js';
import { cleanUp } from '../test/e2e/support/cleanUp.js';

export interface BenchOptions {
  /** Measured seconds per target. */
  duration: number;
  /** Warm-up seconds per target, not measured. */
  warmup: number;
  connections: number;
  /** Where the results section is written. */
  reportFile: string;
}

const defaults: BenchOptions = { duration: 10, warmup: 2, connections: 50, reportFile: join(repoRoot, 'docs', 'benchmarks.md') };

interface Target {
  name: string;
  url: string;
  headers?: Record<string, string>;
  /** Response body size, measured once before the run. */
  bodyBytes?: number;
  /** Plans in one answer, for the catalog targets. */
  plans?: number;
}

interface Measured {
  target: Target;
  result: Result;
}

const apiKeyPattern = /^API key: (sk_live_[a-z0-9]{12}_[A-Za-z0-9]{32,})$/m;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const log = (line: string) => process.stderr.write(`${line}\n`);

export async function catalogBenchmark(overrides: Partial<BenchOptions> = {}): Promise<Measured[]> {
  const options = { ...defaults, ...overrides };
  const suffix = randomBytes(4).toString('hex');
  const namespace = `bench${suffix}`;
  const databaseUrl = `postgres://postgres@127.0.0.1:5432/esim_bench_${suffix}`;
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
  const adminToken = `adm_${randomBytes(24).toString('base64url')}`;
  const workDir = await mkdtemp(join(tmpdir(), 'esim-bench-'));
  const mailDir = join(workDir, 'mail');
  const logDir = join(workDir, 'logs');

  const [publicPort, adminPort, partnersGrpc, partnersHealth, catalogGrpc, catalogHealth, mailerHealth] = await Promise.all(
    Array.from({ length: 7 }, freePort),
  );
  const env: NodeJS.ProcessEnv & { DATABASE_URL: string; REDIS_URL: string; NATS_URL: string } = {
    ...process.env,
    NODE_ENV: 'production',
    CATALOG_SEED: 'true',
    LOG_LEVEL: 'warn',
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    NATS_URL: natsUrl,
    PLATFORM_NAMESPACE: namespace,
    ADMIN_TOKEN: adminToken,
    JWT_SECRET: randomBytes(32).toString('base64'),
    DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    // The limiter still runs on every request (one Redis round trip); it just never refuses.
    RATE_LIMIT_PER_KEY: '1000000/1s',
    MAIL_DIR: mailDir,
  };
  // E-mail goes to .eml files in MAIL_DIR; spans go nowhere (no exporter is measured).
  delete env.SMTP_URL;
  delete env.OTEL_EXPORTER_OTLP_ENDPOINT;
  delete env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;

  let platform: Platform | undefined;
  let hello: ChildProcess | undefined;
  let failed = false;
  // Ctrl-C stops the load at once and still cleans up (a listener replaces Node's default exit).
  let interrupted = false;
  let running: Instance | undefined;
  const stopOnSignal = () => {
    log('interrupted; cleaning up…');
    interrupted = true;
    running?.stop();
  };
  process.once('SIGINT', stopOnSignal);
  try {
    const startedAt = Date.now();
    platform = await startPlatform({
      env,
      ports: { public: publicPort!, admin: adminPort!, partnersGrpc: partnersGrpc!, partnersHealth: partnersHealth!, catalogGrpc: catalogGrpc!, catalogHealth: catalogHealth!, mailerHealth: mailerHealth! },
      logDir,
      echo: log,
    });
    log(`platform ${namespace} ready in ${((Date.now() - startedAt) / 1000).toFixed(1)}s`);
    const publicUrl = `http://127.0.0.1:${publicPort}`;
    const adminUrl = `http://127.0.0.1:${adminPort}`;

    const apiKey = await onboard(publicUrl, adminUrl, adminToken, mailDir);
    const auth = { authorization: `Bearer ${apiKey}` };

    const helloStarted = await startHello();
    hello = helloStarted.child;
    const targets: Target[] = [
      { name: 'fastify hello-world (baseline)', url: `http://127.0.0.1:${helloStarted.port}/` },
      { name: 'GET /api/v1/partner/catalog?country=FR', url: `${publicUrl}/api/v1/partner/catalog?country=FR`, headers: auth },
      { name: 'GET /api/v1/partner/catalog (limit 50)', url: `${publicUrl}/api/v1/partner/catalog`, headers: auth },
    ];
    for (const target of targets) await probe(target);

    const measured: Measured[] = [];
    for (const target of targets) {
      if (interrupted) throw new Error('interrupted');
      log(`loading ${target.name}: ${options.warmup}s warm-up, ${options.duration}s measured, ${options.connections} connections`);
      running = autocannon({
        url: target.url,
        headers: target.headers,
        connections: options.connections,
        duration: options.duration,
        warmup: { connections: options.connections, duration: options.warmup },
        timeout: 10,
      });
      const result = await running;
      if (interrupted) throw new Error('interrupted');
      measured.push({ target, result });
    }

    const table = renderTable(measured);
    process.stdout.write(`\n${table}\n`);
    await writeReport(options, measured, table);
    log(`results written to ${options.reportFile}`);
    return measured;
  } catch (error) {
    failed = true;
    log(`service logs kept in ${logDir}`);
    throw error;
  } finally {
    process.removeListener('SIGINT', stopOnSignal);
    if (hello && hello.exitCode === null) {
      hello.kill('SIGTERM');
      await new Promise((resolve) => hello!.once('exit', resolve));
    }
    await platform?.stop();
    await cleanUp({ databaseUrl, namespace, redisUrl, natsUrl });
    if (!failed) await rm(workDir, { recursive: true, force: true });
  }
}

/** Register, approve through the admin API, and read the key out of the approval e-mail (.eml), as a partner would. */
async function onboard(publicUrl: string, adminUrl: string, adminToken: string, mailDir: string): Promise<string> {
  const email = `bench-${randomBytes(5).toString('hex')}@example.test`;
  const registered = await fetch(`${publicUrl}/api/v1/partner/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Benchmark Partner', email, company: 'Bench Travel Ltd', password: 'a-long-benchmark-password' }),
  });
  if (registered.status !== 201) throw new Error(`register answered ${registered.status}: ${await registered.text()}`);
  const { id } = (await registered.json()) as { id: string };
  const approved = await fetch(`${adminUrl}/admin/v1/partners/${id}/approve`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
    body: JSON.stringify({ tier: 'standard' }),
  });
  if (approved.status !== 200) throw new Error(`approve answered ${approved.status}: ${await approved.text()}`);

  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    for (const file of existsSync(mailDir) ? await readdir(mailDir) : []) {
      if (!file.endsWith('.eml')) continue;
      const mail = await simpleParser(await readFile(join(mailDir, file)));
      const to = [mail.to ?? []].flat().flatMap((address) => address.value.map((v) => v.address?.toLowerCase()));
      const key = apiKeyPattern.exec(mail.text ?? '')?.[1];
      if (to.includes(email) && mail.subject === 'Your partner account is approved' && key) return key;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no approval e-mail for ${email} in ${mailDir} within 30 s`);
}

function startHello(): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'bench', 'hello.ts')], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const port = /PORT=(\d+)/.exec(out)?.[1];
      if (port) resolve({ child, port: Number(port) });
    });
    child.once('exit', (code) => reject(new Error(`hello-world server exited with ${code}`)));
  });
}

/** One request before the load: the target must answer 200, or the benchmark would measure errors. */
async function probe(target: Target): Promise<void> {
  const answer = await fetch(target.url, { headers: target.headers });
  const text = await answer.text();
  if (answer.status !== 200) throw new Error(`${target.name} answered ${answer.status} before the run: ${text}`);
  target.bodyBytes = Buffer.byteLength(text);
  const data = (JSON.parse(text) as { data?: unknown[] }).data;
  if (Array.isArray(data)) target.plans = data.length;
}

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

function renderTable(measured: Measured[]): string {
  const baseline = measured[0]!.result.requests.average;
  const rows = measured.map(({ target, result }) => [
    target.name,
    integer.format(result.requests.average),
    `${Math.round((result.requests.average / baseline) * 100)} %`,
    `${result.latency.p50} ms`,
    `${result.latency.p99} ms`,
    `${result.errors} (${result.timeouts} timeouts)`,
    integer.format(result.non2xx),
    integer.format(result['2xx']),
    target.plans === undefined ? `${target.bodyBytes} B` : `${integer.format(target.bodyBytes ?? 0)} B, ${target.plans} plans`,
  ]);
  const header = ['target', 'requests/s (avg)', 'vs baseline', 'p50', 'p99', 'errors', 'non-2xx', '2xx answered', 'body'];
  const align = ['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:'];
  return [header, align, ...rows].map((row) => `| ${row.join(' | ')} |`).join('\n');
}

const startMarker = '<!-- bench:results:start -->';
const endMarker = '<!-- bench:results:end -->';

/** Replaces the results section of the report (between the markers), keeping the explanation around it. */
async function writeReport(options: BenchOptions, measured: Measured[], table: string): Promise<void> {
  const cpu = cpus();
  const section = [
    startMarker,
    `Measured ${new Date().toISOString()} on ${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ` +
      `${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM (${(freemem() / 2 ** 30).toFixed(1)} GiB free at the end), ` +
      `${osPlatform()} ${release()}, Node ${process.version}; autocannon 9, ${options.connections} connections, ` +
      `${options.warmup} s warm-up then ${options.duration} s measured per target, one target at a time.`,
    '',
    table,
    '',
    `Latency percentiles are autocannon's, in whole milliseconds. Total measured requests: ${integer.format(measured.reduce((n, m) => n + m.result.requests.total, 0))}.`,
    endMarker,
  ].join('\n');
  const current = existsSync(options.reportFile) ? await readFile(options.reportFile, 'utf8') : '';
  const start = current.indexOf(startMarker);
  const end = current.indexOf(endMarker);
  const next =
    start !== -1 && end > start
      ? `${current.slice(0, start)}${section}${current.slice(end + endMarker.length)}`
      : `${current || '# Benchmarks\n'}\n## Results\n\n${section}\n`;
  await writeFile(options.reportFile, next);
}
