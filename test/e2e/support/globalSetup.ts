/**
 * Starts the real platform once for the end-to-end suite: its own database
 * and namespace (never a developer's), a real SMTP sink, a real OTLP
 * receiver, and a small control server through which test files kill,
 * restart and add processes. Everything is removed afterwards.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startPlatform, type Platform } from '../../../scripts/launcher/platform.js';
import { repoRoot, startService, stopService, waitUntilReady, type Running } from '../../../scripts/launcher/supervisor.js';
import { cleanUp } from './cleanUp.js';
import { startOtlpSink } from './otlpSink.js';
import { startSmtpSink } from './smtpSink.js';

export interface PlatformInfo {
  publicUrl: string;
  adminUrl: string;
  adminToken: string;
  controlUrl: string;
  namespace: string;
  databaseUrl: string;
  logDir: string;
  /** The portal JWT key, so tests can mint expired tokens. */
  jwtSecret: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    platform: PlatformInfo;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export default async function setup(project: TestProject) {
  const suffix = randomBytes(4).toString('hex');
  const namespace = `e2e${suffix}`;
  const databaseUrl = `postgres://postgres@127.0.0.1:5432/esim_e2e_${suffix}`;
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
  const adminToken = `adm_${randomBytes(24).toString('base64url')}`;
  const jwtSecret = randomBytes(32).toString('base64');
  const logDir = join(repoRoot, 'var', 'e2e', namespace);

  const smtp = await startSmtpSink();
  const otlp = await startOtlpSink();
  const [publicPort, adminPort, partnersGrpc, partnersHealth, catalogGrpc, catalogHealth, mailerHealth] = await Promise.all(
    Array.from({ length: 7 }, freePort),
  );
  const env = {
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    NATS_URL: natsUrl,
    PLATFORM_NAMESPACE: namespace,
    SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
    ADMIN_TOKEN: adminToken,
    JWT_SECRET: jwtSecret,
    DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    // A 10 s window makes "the 101st request is refused" independent of timing.
    RATE_LIMIT_PER_KEY: '100/10s',
    MAIL_ACK_WAIT_MS: '5000',
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '200',
  };
  const startedAt = Date.now();
  const platform: Platform = await startPlatform({
    env,
    ports: { public: publicPort!, admin: adminPort!, partnersGrpc: partnersGrpc!, partnersHealth: partnersHealth!, catalogGrpc: catalogGrpc!, catalogHealth: catalogHealth!, mailerHealth: mailerHealth! },
    logDir,
    echo: () => {},
  });
  process.stderr.write(`e2e platform ${namespace} ready in ${((Date.now() - startedAt) / 1000).toFixed(1)}s; logs in ${logDir}\n`);

  const replicas: Running[] = [];
  const control: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://control');
    const reply = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const [, kind, name, action] = url.pathname.split('/');
    void (async () => {
      if (req.method === 'GET' && kind === 'mail') return reply(200, smtp.messages);
      if (req.method === 'GET' && kind === 'spans') return reply(200, otlp.spans);
      if (req.method === 'POST' && kind === 'services' && name && action === 'kill') {
        await platform.kill(name, url.searchParams.get('signal') === 'SIGTERM' ? 'SIGTERM' : 'SIGKILL');
        return reply(200, { killed: name });
      }
      if (req.method === 'POST' && kind === 'services' && name && action === 'start') {
        await platform.start(name);
        return reply(200, { started: name });
      }
      if (req.method === 'POST' && kind === 'replicas' && name === 'gateway') {
        const [port, admin] = await Promise.all([freePort(), freePort()]);
        const running = startService(
          {
            name: 'gateway',
            env: { PORT: `${port}`, ADMIN_PORT: `${admin}`, PARTNERS_ADDR: `127.0.0.1:${partnersGrpc}`, CATALOG_ADDR: `127.0.0.1:${catalogGrpc}` },
            readyUrl: `http://127.0.0.1:${port}/readyz`,
          },
          env,
          join(logDir, `replica-${replicas.length + 1}`),
          () => {},
        );
        replicas.push(running);
        await waitUntilReady(running, 60_000);
        return reply(200, { publicUrl: `http://127.0.0.1:${port}`, adminUrl: `http://127.0.0.1:${admin}` });
      }
      return reply(404, { error: 'unknown control call' });
    })().catch((error: Error) => reply(500, { error: error.message }));
  });
  await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));

  project.provide('platform', {
    publicUrl: `http://127.0.0.1:${publicPort}`,
    adminUrl: `http://127.0.0.1:${adminPort}`,
    adminToken,
    controlUrl: `http://127.0.0.1:${(control.address() as AddressInfo).port}`,
    namespace,
    databaseUrl,
    logDir,
    jwtSecret,
  });

  return async () => {
    for (const replica of replicas) await stopService(replica);
    await platform.stop();
    await new Promise<void>((resolve) => control.close(() => resolve()));
    await smtp.close();
    await otlp.close();
    await cleanUp({ databaseUrl, namespace, redisUrl, natsUrl });
  };
}
