/**
 * Starts the real platform once for the end-to-end suite: its own database
 * and namespace (never a developer's), a real SMTP sink, a real OTLP
 * receiver, and a small control server through which test files kill,
 * restart and add processes. Everything is removed afterwards.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { launcherConfig } from '../../../scripts/launcher/config.js';
import { startPlatform, type Platform } from '../../../scripts/launcher/platform.js';
import { anyFreePort, freePorts } from '../../../scripts/launcher/ports.js';
import { addressEnv, portEnv, readinessPort, services } from '../../../scripts/launcher/services.js';
import { startSuiteNats } from './natsServer.js';
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
  /** True when the suite runs its own NATS server and `POST /nats/restart` on the control server works. */
  natsRestartable: boolean;
  /** Every service's ports, by service name and port kind (health, grpc, http, admin). */
  ports: Record<string, Partial<Record<string, number>>>;
  natsUrl: string;
  /** The supplier simulator: its supplier API and its control API (§13, /simulator/esims/{iccid}/…). */
  supplierSimUrl: string;
  /** SUPPLIER_CALLBACK_SECRET of this platform copy, so a test can sign notifications itself (replays, out of order). */
  supplierCallbackSecret: string;
  /** The suite's SMTP sink, so a second platform copy (a fault test's own) mails where GET /mail on the control server reads. */
  smtpUrl: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    platform: PlatformInfo;
  }
}

/** `?clockSkewMs=N` on POST /replicas/<name>: the replica's wall clock runs N ms off (test/support/skewClock.mjs, #23). */
function skewEnv(skewMs: string | null): Record<string, string> {
  if (!skewMs || !/^-?\d+$/.test(skewMs)) return {};
  const preload = `--import ${join(repoRoot, 'test', 'support', 'skewClock.mjs')}`;
  return { CLOCK_SKEW_MS: skewMs, NODE_OPTIONS: [process.env.NODE_OPTIONS, preload].filter(Boolean).join(' ') };
}

export default async function setup(project: TestProject) {
  const suffix = randomBytes(4).toString('hex');
  const namespace = `e2e${suffix}`;
  const databaseUrl = `postgres://postgres@127.0.0.1:5432/esim_e2e_${suffix}`;
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  // The suite's own NATS server (when the binary is here), so a test can restart it mid-load.
  const suiteNats = await startSuiteNats(await anyFreePort(), process.env.NATS_URL ?? 'nats://127.0.0.1:4222');
  const natsUrl = suiteNats.url;
  const adminToken = `adm_${randomBytes(24).toString('base64url')}`;
  const jwtSecret = randomBytes(32).toString('base64');
  const supplierCallbackSecret = randomBytes(32).toString('base64url');
  const logDir = join(repoRoot, 'var', 'e2e', namespace);

  const smtp = await startSmtpSink();
  const otlp = await startOtlpSink();
  const askedPorts = await freePorts();
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
    SUPPLIER_CALLBACK_SECRET: supplierCallbackSecret,
    // The simulator's eSIMs of this copy only, beside its logs (never a developer's var/supplier-sim).
    SUPPLIER_SIM_DATA_DIR: join(logDir, 'supplier-sim'),
    // A 10 s window makes "the 101st request is refused" independent of timing.
    RATE_LIMIT_PER_KEY: '100/10s',
    MAIL_ACK_WAIT_MS: '5000',
    // The money path, compressed so failures and crashes settle within a test's time.
    SUPPLIER_LATENCY_MS: '20',
    PROVISIONING_RETRY_BASE_MS: '200',
    PROVISIONING_RETRY_MAX_MS: '2000',
    // A killed worker's messages come back after the ack wait, 4 × (timeout + 5 s) = 28 s: well inside the window.
    SUPPLIER_TIMEOUT_MS: '2000',
    PROVISIONING_RETRY_WINDOW_MS: '120000',
    ORDERS_SWEEP_AFTER_MS: '3000',
    ORDERS_SWEEP_INTERVAL_MS: '1000',
    // Webhooks: three quick retries, then failed.
    WEBHOOK_RETRY_SCHEDULE: '200ms,500ms,1s',
    WEBHOOK_TIMEOUT_MS: '1500',
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '200',
  };
  const startedAt = Date.now();
  const platform: Platform = await startPlatform({
    env,
    ports: askedPorts,
    logDir,
    echo: () => {},
    // Eight services booting through tsx at once on a loaded, shared 2-core machine take minutes, not the launcher's 90 s.
    // E2E_READY_TIMEOUT_MS overrides it (milliseconds).
    readyTimeoutMs: Number(process.env.E2E_READY_TIMEOUT_MS) || 420_000,
    // As `npm start` runs it: test mode on replicas of its own (EVENT_LANES=test) within its CPU budget, so every test-mode file crosses the lanes.
    testModeReplicas: launcherConfig({ TEST_MODE_CPU: process.env.TEST_MODE_CPU, TEST_MODE_CPU_ADAPTIVE: process.env.TEST_MODE_CPU_ADAPTIVE }).testModeReplicas,
  });
  // The launcher moves an internal port another process took meanwhile; these are the ones in use.
  const ports = platform.ports;
  const publicPort = ports.gateway!.http!;
  const adminPort = ports.gateway!.admin!;
  process.stderr.write(`e2e platform ${namespace} ready in ${((Date.now() - startedAt) / 1000).toFixed(1)}s; logs in ${logDir}\n`);

  const replicas: Running[] = [];
  const control: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://control');
    const reply = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const [, kind, name, action] = url.pathname.split('/');
    void (async () => {
      if (req.method === 'GET' && kind === 'mail') return reply(200, smtp.messages);
      if (req.method === 'GET' && kind === 'spans') {
        const traceId = url.searchParams.get('traceId');
        return reply(200, traceId ? otlp.spans.filter((span) => span.traceId === traceId) : otlp.spans);
      }
      if (req.method === 'POST' && kind === 'services' && name && action === 'kill') {
        await platform.kill(name, url.searchParams.get('signal') === 'SIGTERM' ? 'SIGTERM' : 'SIGKILL');
        return reply(200, { killed: name });
      }
      // POST /services/<name>/signal?signal=SIGSTOP|SIGCONT: a paused process (GC, a frozen VM), resumed later (#23).
      if (req.method === 'POST' && kind === 'services' && name && action === 'signal') {
        const signal = url.searchParams.get('signal');
        const running = platform.services.get(name);
        if (!running || (signal !== 'SIGSTOP' && signal !== 'SIGCONT')) return reply(400, { error: 'a running service and signal=SIGSTOP|SIGCONT' });
        running.child.kill(signal);
        return reply(200, { signalled: name, signal });
      }
      if (req.method === 'POST' && kind === 'services' && name && action === 'start') {
        await platform.start(name);
        return reply(200, { started: name });
      }
      if (req.method === 'POST' && kind === 'nats' && name === 'restart') {
        await suiteNats.restart(Number(url.searchParams.get('downMs') ?? 1_000));
        return reply(200, { restarted: 'nats' });
      }
      // Another instance of any service, on ports of its own, talking to the same backends.
      // Upper-case query parameters are settings of that replica only (`?RATE_LIMIT_PER_TEST_KEY=25/10s`).
      const entry = services.find((candidate) => candidate.name === name);
      if (req.method === 'POST' && kind === 'replicas' && entry && !action) {
        const own = Object.fromEntries(await Promise.all(Object.keys(entry.ports).map(async (portKind) => [portKind, await anyFreePort()] as const)));
        const settings = Object.fromEntries([...url.searchParams].filter(([key]) => /^[A-Z][A-Z0-9_]*$/.test(key)));
        const index = replicas.length;
        const running = startService(
          { name: entry.name, env: { ...addressEnv(ports), ...portEnv(own), ...settings, ...skewEnv(url.searchParams.get('clockSkewMs')) }, readyUrl: `http://127.0.0.1:${readinessPort(entry, own)}/readyz` },
          env,
          join(logDir, `replica-${index + 1}`),
          () => {},
        );
        replicas.push(running);
        await waitUntilReady(running, 60_000);
        return reply(200, {
          replica: index,
          ports: own,
          ...(own.http ? { publicUrl: `http://127.0.0.1:${own.http}` } : {}),
          ...(own.admin ? { adminUrl: `http://127.0.0.1:${own.admin}` } : {}),
        });
      }
      // POST /replicas/<index>/kill?signal=SIGKILL|SIGTERM
      if (req.method === 'POST' && kind === 'replicas' && name && action === 'kill') {
        const running = replicas[Number(name)];
        if (!running) return reply(404, { error: `no replica ${name}` });
        if (url.searchParams.get('signal') === 'SIGTERM') await stopService(running);
        else {
          running.child.kill('SIGKILL');
          await running.exited;
        }
        return reply(200, { killed: Number(name) });
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
    natsRestartable: suiteNats.restartable,
    ports,
    natsUrl,
    supplierSimUrl: `http://127.0.0.1:${ports['supplier-sim']!.http}`,
    supplierCallbackSecret,
    smtpUrl: `smtp://127.0.0.1:${smtp.port}`,
  });

  return async () => {
    for (const replica of replicas) await stopService(replica);
    await platform.stop();
    await new Promise<void>((resolve) => control.close(() => resolve()));
    await smtp.close();
    await otlp.close();
    await cleanUp({ databaseUrl, namespace, redisUrl, natsUrl });
    await suiteNats.stop();
  };
}
