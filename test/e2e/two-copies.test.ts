// Protects #17's "boot that cannot lie": a second copy of the platform on the same machine, given
// the first copy's internal ports (as two `npm start` with the default ports are), runs beside it
// on free ones, and each copy's data lands in its own database. A second launcher for a namespace
// that is running refuses with one line.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launcherConfig } from '../../scripts/launcher/config.js';
import { startPlatform, type Platform } from '../../scripts/launcher/platform.js';
import { runningInstance } from '../../scripts/launcher/instance.js';
import { anyFreePort } from '../../scripts/launcher/ports.js';
import type { Ports } from '../../scripts/launcher/services.js';
import { call, freshSourceAddress, platform as first, uniqueEmail } from './support/client.js';
import { cleanUp } from './support/cleanUp.js';

const suffix = randomBytes(4).toString('hex');
const second = { namespace: `copy${suffix}`, databaseUrl: `postgres://postgres@127.0.0.1:5432/esim_copy_${suffix}` };
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
let copy: Platform | undefined;
let workDir: string;

function secondEnv(namespace: string, databaseUrl: string) {
  const env: NodeJS.ProcessEnv & { DATABASE_URL: string; REDIS_URL: string; NATS_URL: string } = {
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    NATS_URL: first.natsUrl,
    PLATFORM_NAMESPACE: namespace,
    ADMIN_TOKEN: `adm_${randomBytes(24).toString('base64url')}`,
    JWT_SECRET: randomBytes(32).toString('base64'),
    DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    MAIL_DIR: join(workDir, 'mail'),
  };
  delete env.SMTP_URL;
  delete env.OTEL_EXPORTER_OTLP_ENDPOINT;
  return env;
}

/** The first copy's ports for every internal service, fresh public ones for the gateway: what a developer's second `npm start` asks for. */
async function collidingPorts(): Promise<Ports> {
  return { ...structuredClone(first.ports as Ports), gateway: { http: await anyFreePort(), admin: await anyFreePort() } };
}

async function partnerEmails(databaseUrl: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<{ email: string }>('SELECT email FROM partners.partners')).rows.map((row) => row.email);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'esim-copy-'));
  copy = await startPlatform({
    env: secondEnv(second.namespace, second.databaseUrl),
    ports: await collidingPorts(),
    logDir: join(workDir, 'logs'),
    echo: () => {},
    readyTimeoutMs: 170_000,
    // As npm start runs it (and the first copy): test mode's own replicas too, within their CPU budget.
    testModeReplicas: launcherConfig({ TEST_MODE_CPU: process.env.TEST_MODE_CPU, TEST_MODE_CPU_ADAPTIVE: process.env.TEST_MODE_CPU_ADAPTIVE }).testModeReplicas,
  });
}, 360_000);

afterAll(async () => {
  await copy?.stop();
  await cleanUp({ databaseUrl: second.databaseUrl, namespace: second.namespace, redisUrl, natsUrl: first.natsUrl });
  await rm(workDir, { recursive: true, force: true });
}, 120_000);

describe('two copies on one machine', () => {
  it('when a second copy is given the first copy\'s internal ports, then it runs on free ones and each copy\'s data lands in its own database', async () => {
    for (const [service, kinds] of Object.entries(first.ports)) {
      if (service === 'gateway') continue;
      for (const [kind, port] of Object.entries(kinds)) expect(copy!.ports[service]![kind as 'grpc']).not.toBe(port);
    }
    const emails = [uniqueEmail('first'), uniqueEmail('second')];
    const urls = [first.publicUrl, `http://127.0.0.1:${copy!.ports.gateway!.http}`];
    for (const [index, url] of urls.entries()) {
      const answer = await call(url, '/api/v1/partner/register', {
        body: { name: 'Copy Partner', email: emails[index], company: 'Copy Travel Ltd', password: 'a-long-portal-password' },
        localAddress: freshSourceAddress(),
      });
      expect(answer.status).toBe(201);
    }
    const [inFirst, inSecond] = await Promise.all([partnerEmails(first.databaseUrl), partnerEmails(second.databaseUrl)]);
    expect(inFirst).toContain(emails[0]);
    expect(inFirst).not.toContain(emails[1]);
    expect(inSecond).toEqual([emails[1]]);
  });

  it('when a launcher starts a namespace that is running, then it refuses with one line and starts nothing', async () => {
    const running = runningInstance(first.namespace);
    // The suite's launcher runs in vitest's main process; a worker thread shares its pid and may claim it again.
    if (!running) return;
    await expect(
      startPlatform({ env: secondEnv(first.namespace, first.databaseUrl), ports: await collidingPorts(), logDir: join(workDir, 'refused'), echo: () => {} }),
    ).rejects.toThrow(`Platform namespace "${first.namespace}" is already running on this machine (launcher pid ${running.pid}`);
  });
});
