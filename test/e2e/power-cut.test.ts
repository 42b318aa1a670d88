// #23: after a power cut the platform comes back. Every process of a running `npm start` is SIGKILLed
// at once and `npm start` runs again: it must come up (the namespace lock dies with its launcher; no pid
// is trusted). And a port another process binds between the launcher's check and the service's own
// bind moves to a free one instead of taking the whole platform down (EADDRINUSE).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startPlatform } from '../../scripts/launcher/platform.js';
import { anyFreePort } from '../../scripts/launcher/ports.js';
import { repoRoot } from '../../scripts/launcher/supervisor.js';
import { platform as first } from './support/client.js';
import { cleanUp } from './support/cleanUp.js';

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const runs: Array<{ namespace: string; databaseUrl: string }> = [];
const cleanups: Array<() => Promise<unknown>> = [];
let workDir: string | undefined;

function copyEnv() {
  const suffix = randomBytes(4).toString('hex');
  const run = { namespace: `cut${suffix}`, databaseUrl: `postgres://postgres@127.0.0.1:5432/esim_cut_${suffix}` };
  runs.push(run);
  const env: NodeJS.ProcessEnv & { DATABASE_URL: string; REDIS_URL: string; NATS_URL: string } = {
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    DATABASE_URL: run.databaseUrl,
    REDIS_URL: redisUrl,
    NATS_URL: first.natsUrl,
    PLATFORM_NAMESPACE: run.namespace,
    ADMIN_TOKEN: `adm_${randomBytes(24).toString('base64url')}`,
    JWT_SECRET: randomBytes(32).toString('base64'),
    DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    MAIL_DIR: join(workDir!, 'mail'),
  };
  delete env.SMTP_URL;
  delete env.OTEL_EXPORTER_OTLP_ENDPOINT;
  return env;
}

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  for (const run of runs) await cleanUp({ ...run, redisUrl, natsUrl: first.natsUrl }).catch(() => {});
  if (workDir) await rm(workDir, { recursive: true, force: true });
}, 120_000);

/** `npm start` (scripts/start.ts) in its own process group; resolves once it prints that the platform is ready. */
function npmStart(env: NodeJS.ProcessEnv): { child: ChildProcess; ready: Promise<string>; output: () => string } {
  const child = spawn(process.execPath, ['--conditions=development', '--import', 'tsx', 'scripts/start.ts'], { cwd: repoRoot, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const ready = new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Platform ready in')) resolve(output);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`npm start exited with code ${code}:\n${output}`)));
  });
  ready.catch(() => {});
  return { child, ready, output: () => output };
}

describe('launcher faults', () => {
  it('when another process binds an internal port between the launcher\'s check and the service\'s bind, then that service starts on another port and the platform comes up', async () => {
    workDir ??= await mkdtemp(join(tmpdir(), 'esim-cut-'));
    const ports = structuredClone(first.ports) as Record<string, Record<string, number>>;
    for (const kinds of Object.values(ports)) for (const kind of Object.keys(kinds)) kinds[kind] = await anyFreePort();
    const lines: string[] = [];
    let thief: Server | undefined;
    let stolen = 0;
    const copy = await startPlatform({
      env: copyEnv(),
      ports,
      logDir: join(workDir, 'race-logs'),
      echo: (line) => lines.push(line),
      readyTimeoutMs: 240_000,
      beforeLaunch: async (chosen) => {
        stolen = chosen.orders!.grpc!;
        thief = createServer();
        await new Promise<void>((resolve) => thief!.listen({ port: stolen, host: '0.0.0.0', exclusive: true }, resolve));
      },
    });
    cleanups.push(() => copy.stop());
    cleanups.push(() => new Promise((resolve) => thief!.close(resolve)));
    expect(stolen).toBeGreaterThan(0);
    expect(copy.ports.orders!.grpc).not.toBe(stolen);
    expect(lines.join('\n')).toContain(`orders grpc ${stolen} → ${copy.ports.orders!.grpc}`);
    const ready = await fetch(`http://127.0.0.1:${copy.ports.gateway!.http}/readyz`);
    expect(ready.status).toBe(200);
    await copy.stop();
  }, 600_000);

  it('when every process of a running npm start is SIGKILLed at once, then npm start comes up again', async () => {
    workDir ??= await mkdtemp(join(tmpdir(), 'esim-cut-'));
    const env = {
      ...copyEnv(),
      PORT: String(await anyFreePort()),
      ADMIN_PORT: String(await anyFreePort()),
      SUPPLIER_SIM_PORT: String(await anyFreePort()),
    };
    const before = npmStart(env);
    cleanups.push(async () => {
      try {
        process.kill(-before.child.pid!, 'SIGKILL');
      } catch {
        // gone
      }
    });
    await before.ready;
    // The power cut: the launcher and every service, all at once.
    process.kill(-before.child.pid!, 'SIGKILL');
    await new Promise((resolve) => before.child.once('exit', resolve));

    const after = npmStart(env);
    cleanups.push(async () => {
      try {
        process.kill(-after.child.pid!, 'SIGTERM');
      } catch {
        return;
      }
      await new Promise((resolve) => after.child.once('exit', resolve));
    });
    const output = await after.ready;
    expect(output).not.toContain('already running');
    const ready = await fetch(`http://127.0.0.1:${env.PORT}/readyz`);
    expect(ready.status).toBe(200);
  }, 900_000);
});
