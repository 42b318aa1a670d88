import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { startPlatform, type Platform } from '../../scripts/launcher/platform.js';
import { freePorts } from '../../scripts/launcher/ports.js';
import type { TestModeReplicas } from '../../scripts/launcher/services.js';
import { repoRoot, type LaunchMode } from '../../scripts/launcher/supervisor.js';
import { cleanUp } from '../../test/e2e/support/cleanUp.js';

/**
 * The real platform for one benchmark: every service in its own process,
 * its own throw-away database, NATS namespace and Redis key prefix, e-mail
 * as .eml files in a temporary directory. `stop` removes all of it (the
 * service logs are kept when the run failed).
 */
export interface BenchPlatform {
  publicUrl: string;
  adminUrl: string;
  adminToken: string;
  databaseUrl: string;
  /** Where the platform's e-mail lands as .eml files. */
  mailDir: string;
  platform: Platform;
  /** The process id of each service, by name. */
  pids(): Record<string, number>;
  /** Register, operator approval, and the key read out of the approval e-mail, as a partner would. */
  onboard(tier?: 'standard' | 'premium' | 'enterprise'): Promise<{ partnerId: string; apiKey: string; email: string; password: string }>;
  stop(failed: boolean): Promise<void>;
}

const apiKeyPattern = /^API key: (sk_live_[a-z0-9]{12}_[A-Za-z0-9]{32,})$/m;
export const log = (line: string) => process.stderr.write(`${line}\n`);

export interface BenchPlatformOptions {
  /** Compiled dist/ (default: what the image runs; call `buildCompiled` first) or sources through tsx. */
  mode?: LaunchMode;
  /** Test mode's own replicas, as `npm start` runs them (scripts/launcher/services.ts); off unless asked for. */
  testModeReplicas?: TestModeReplicas;
}

export async function startBenchPlatform(extraEnv: Record<string, string> = {}, options: BenchPlatformOptions = {}): Promise<BenchPlatform> {
  const suffix = randomBytes(4).toString('hex');
  const namespace = `bench${suffix}`;
  const databaseUrl = `postgres://postgres@127.0.0.1:5432/esim_bench_${suffix}`;
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
  const adminToken = `adm_${randomBytes(24).toString('base64url')}`;
  const workDir = await mkdtemp(join(tmpdir(), 'esim-bench-'));
  const mailDir = join(workDir, 'mail');
  const logDir = join(workDir, 'logs');
  const ports = await freePorts();
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
    // Production has no development default for it (supplier-sim and the gateway refuse to start without it).
    SUPPLIER_CALLBACK_SECRET: randomBytes(32).toString('base64url'),
    // The limiter still runs on every request (one Redis round trip); it just never refuses.
    RATE_LIMIT_PER_KEY: '1000000/1s',
    MAIL_DIR: mailDir,
    // The simulator's state of this run alone: its default folder (var/supplier-sim) outlives runs, and it rewrites its whole
    // state on every change, so a state grown by earlier runs (8 MB after one saga benchmark) cost every later run ~55 ms of CPU per order.
    SUPPLIER_SIM_DATA_DIR: join(workDir, 'supplier-sim'),
    ...extraEnv,
  };
  // E-mail goes to .eml files in MAIL_DIR; spans go nowhere unless the caller configures an exporter.
  delete env.SMTP_URL;
  if (!extraEnv.OTEL_EXPORTER_OTLP_ENDPOINT) {
    delete env.OTEL_EXPORTER_OTLP_ENDPOINT;
    delete env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  }
  // The sampler is the benchmark's to choose, never the caller's shell's.
  if (!extraEnv.OTEL_TRACES_SAMPLER) {
    delete env.OTEL_TRACES_SAMPLER;
    delete env.OTEL_TRACES_SAMPLER_ARG;
  }
  const startedAt = Date.now();
  let platform: Platform;
  try {
    // A machine shared with other workloads can take minutes to start nine services.
    platform = await startPlatform({
      env,
      ports,
      logDir,
      echo: log,
      mode: options.mode ?? 'compiled',
      readyTimeoutMs: 300_000,
      // Production's provisioning sells only from real upstreams over ES2+ mutual TLS (#25) and refuses the simulator
      // every benchmark provisions from; it alone runs as development, so the other services keep production's settings.
      serviceEnv: env.NODE_ENV === 'production' ? { provisioning: { NODE_ENV: 'development' } } : {},
      testModeReplicas: options.testModeReplicas,
    });
  } catch (error) {
    await cleanUp({ databaseUrl, namespace, redisUrl, natsUrl });
    log(`service logs kept in ${logDir}`);
    throw error;
  }
  log(`platform ${namespace} ready in ${((Date.now() - startedAt) / 1000).toFixed(1)}s`);
  const publicUrl = `http://127.0.0.1:${platform.ports.gateway!.http}`;
  const adminUrl = `http://127.0.0.1:${platform.ports.gateway!.admin}`;

  return {
    publicUrl,
    adminUrl,
    adminToken,
    databaseUrl,
    mailDir,
    platform,
    pids: () => Object.fromEntries([...platform.services].map(([name, running]) => [name, running.child.pid!])),
    onboard: (tier = 'standard') => onboard(publicUrl, adminUrl, adminToken, mailDir, tier),
    async stop(failed) {
      await platform.stop();
      await cleanUp({ databaseUrl, namespace, redisUrl, natsUrl });
      // BENCH_KEEP_LOGS: a run that succeeded is read too (where a saga's seconds went).
      if (failed || process.env.BENCH_KEEP_LOGS) log(`service logs kept in ${logDir}`);
      else await rm(workDir, { recursive: true, force: true });
    },
  };
}

export async function onboard(publicUrl: string, adminUrl: string, adminToken: string, mailDir: string, tier: string) {
  const email = `bench-${randomBytes(5).toString('hex')}@example.test`;
  const registered = await fetch(`${publicUrl}/api/v1/partner/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Benchmark Partner', email, company: 'Bench Travel Ltd', password: 'a-long-benchmark-password' }),
  });
  if (registered.status !== 201) throw new Error(`register answered ${registered.status}: ${await registered.text()}`);
  const { id } = (await registered.json()) as { id: string };
  // The applicant proves the address with the link of the "application received" e-mail (§4) before approval.
  const token = await mailedLine(mailDir, email, verifyLinkPattern);
  const verified = await fetch(`${publicUrl}/api/v1/partner/verify-email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token }),
  });
  if (verified.status !== 200) throw new Error(`verify-email answered ${verified.status}: ${await verified.text()}`);
  const approved = await fetch(`${adminUrl}/admin/v1/partners/${id}/approve`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
    body: JSON.stringify({ tier }),
  });
  if (approved.status !== 200) throw new Error(`approve answered ${approved.status}: ${await approved.text()}`);
  return { partnerId: id, apiKey: await mailedLine(mailDir, email, apiKeyPattern), email, password: 'a-long-benchmark-password' };
}

const verifyLinkPattern = /\/verify-email\?token=([A-Za-z0-9_-]{32,})$/m;

/** The first capture of `pattern` in an .eml file to `email` under `mailDir`, as the partner's mail client would show it. */
async function mailedLine(mailDir: string, email: string, pattern: RegExp): Promise<string> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    for (const file of existsSync(mailDir) ? await readdir(mailDir) : []) {
      if (!file.endsWith('.eml')) continue;
      const mail = await simpleParser(await readFile(join(mailDir, file)));
      const to = [mail.to ?? []].flat().flatMap((address) => address.value.map((v) => v.address?.toLowerCase()));
      const found = pattern.exec(mail.text ?? '')?.[1];
      if (to.includes(email) && found) return found;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no e-mail to ${email} matching ${pattern} in ${mailDir} within 30 s`);
}

/** Replaces the section between `<!-- bench:<name>:start -->` and `…:end -->` of the report, keeping the rest. */
export async function writeSection(reportFile: string, name: string, body: string): Promise<void> {
  const { writeFile } = await import('node:fs/promises');
  const start = `<!-- bench:${name}:start -->`;
  const end = `<!-- bench:${name}:end -->`;
  const section = `${start}\n${body}\n${end}`;
  const current = existsSync(reportFile) ? await readFile(reportFile, 'utf8') : '# Benchmarks\n';
  const from = current.indexOf(start);
  const to = current.indexOf(end);
  const next = from !== -1 && to > from ? `${current.slice(0, from)}${section}${current.slice(to + end.length)}` : `${current.trimEnd()}\n\n${section}\n`;
  await writeFile(reportFile, next);
}

/** `npm run build`: every workspace compiled to dist/, as the image runs it. Throws when the build fails. */
export function buildCompiled(): number {
  const startedAt = performance.now();
  const build = spawnSync(process.execPath, ['--conditions=development', '--import', 'tsx', 'scripts/build/build.ts'], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] });
  if (build.status !== 0) throw new Error('npm run build failed');
  return performance.now() - startedAt;
}

/** Runs one of bench/*.ts in its own process and resolves once it prints `PORT=<port>`. */
export function startScript(file: string): Promise<{ child: ChildProcess; port: number; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'bench', file)], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  };
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const port = /PORT=(\d+)/.exec(out)?.[1];
      if (port) resolve({ child, port: Number(port), stop });
    });
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code}`)));
  });
}
