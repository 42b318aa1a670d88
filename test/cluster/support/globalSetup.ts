/**
 * Starts the clustered platform once for the cluster suite (clusterPlatform.ts)
 * and a control server through which the test kills and restarts NATS nodes,
 * Redis nodes and service replicas. It provides the same `platform` the e2e
 * suite's helpers read (test/e2e/support/client.ts), with gateway replica A
 * as the public and admin URL, and `cluster` with the rest.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestProject } from 'vitest/node';
import type { PlatformInfo } from '../../e2e/support/globalSetup.js';
import { startSmtpSink } from '../../e2e/support/smtpSink.js';
import { cleanUp } from './cleanUp.js';
import { startClusterPlatform } from './clusterPlatform.js';

export interface ClusterInfo {
  /** Both gateway replicas' public and admin URLs. */
  gatewayUrls: string[];
  adminUrls: string[];
  nats: Array<{ name: string; url: string }>;
  redisSeedNodes: string;
  /** `name` and replica count of every service, in start order. */
  layout: Array<{ name: string; replicas: number }>;
}

declare module 'vitest' {
  export interface ProvidedContext {
    cluster: ClusterInfo;
  }
}

export default async function setup(project: TestProject) {
  const adminToken = `adm_${randomBytes(24).toString('base64url')}`;
  const jwtSecret = randomBytes(32).toString('base64');
  const smtp = await startSmtpSink();
  const startedAt = Date.now();
  const platform = await startClusterPlatform({
    SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
    ADMIN_TOKEN: adminToken,
    JWT_SECRET: jwtSecret,
    DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    RATE_LIMIT_PER_KEY: '100/10s',
    SUPPLIER_LATENCY_MS: '20',
    PROVISIONING_RETRY_BASE_MS: '200',
    PROVISIONING_RETRY_MAX_MS: '2000',
    SUPPLIER_TIMEOUT_MS: '2000',
    PROVISIONING_RETRY_WINDOW_MS: '300000',
    ORDERS_SWEEP_AFTER_MS: '3000',
    ORDERS_SWEEP_INTERVAL_MS: '1000',
    WEBHOOK_RETRY_SCHEDULE: '200ms,500ms,1s,2s,5s,10s,20s',
    WEBHOOK_TIMEOUT_MS: '1500',
    // A replica that is told to stop finishes its work within 10 s (a rolling restart step).
    SHUTDOWN_TIMEOUT_MS: '10000',
  }).catch(async (error: unknown) => {
    await smtp.close();
    throw error;
  });
  process.stderr.write(`cluster platform ${platform.namespace} ready in ${((Date.now() - startedAt) / 1000).toFixed(1)}s; logs in ${platform.logDir}\n`);

  const control: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://control');
    const reply = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const [, kind, name, action] = url.pathname.split('/');
    void (async () => {
      if (req.method === 'GET' && kind === 'mail') return reply(200, smtp.messages);
      if (req.method === 'GET' && kind === 'ready') return reply(200, { ready: await platform.allReady() });
      if (req.method === 'GET' && kind === 'nats' && name === 'meta-leader') return reply(200, { leader: await platform.nats.metaLeader() });
      if (req.method === 'POST' && kind === 'nats' && name && action === 'kill') return reply(200, await platform.nats.kill(name));
      if (req.method === 'POST' && kind === 'nats' && name && action === 'restart') return reply(200, await platform.nats.restart(name, 180_000));
      if (req.method === 'GET' && kind === 'redis' && name === 'masters') return reply(200, { masters: await platform.redis.masters() });
      if (req.method === 'POST' && kind === 'redis' && name === 'healthy') return reply(200, await platform.redis.waitHealthy(180_000));
      if (req.method === 'POST' && kind === 'redis' && name && action === 'kill') return reply(200, await platform.redis.kill(Number(name)));
      if (req.method === 'POST' && kind === 'redis' && name && action === 'restart') return reply(200, await platform.redis.restart(Number(name), 180_000));
      // POST /replicas/<0|1>/restart: one wave of the rolling restart.
      if (req.method === 'POST' && kind === 'replicas' && name && action === 'restart') return reply(200, await platform.restartReplica(Number(name)));
      return reply(404, { error: 'unknown control call' });
    })().catch((error: Error) => reply(500, { error: error.message }));
  });
  // Control calls wait for whole restarts (minutes on a busy machine): no server-side request timeout.
  control.requestTimeout = 0;
  await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));

  const [a, b] = platform.replicaPorts;
  const info: PlatformInfo = {
    publicUrl: `http://127.0.0.1:${a.gateway!.http}`,
    adminUrl: `http://127.0.0.1:${a.gateway!.admin}`,
    adminToken,
    controlUrl: `http://127.0.0.1:${(control.address() as AddressInfo).port}`,
    namespace: platform.namespace,
    databaseUrl: platform.databaseUrl,
    logDir: platform.logDir,
    jwtSecret,
    natsRestartable: false,
    ports: a,
    natsUrl: platform.nats.url,
    // The cluster suite does not drive the simulator's control API (§13); these fill the shared shape.
    supplierSimUrl: `http://127.0.0.1:${a['supplier-sim']?.http ?? 0}`,
    supplierCallbackSecret: '',
    smtpUrl: `smtp://127.0.0.1:${smtp.port}`,
  };
  project.provide('platform', info);
  project.provide('cluster', {
    gatewayUrls: [a, b].map((ports) => `http://127.0.0.1:${ports.gateway!.http}`),
    adminUrls: [a, b].map((ports) => `http://127.0.0.1:${ports.gateway!.admin}`),
    nats: platform.nats.nodes.map((n) => ({ name: n.name, url: n.url })),
    redisSeedNodes: platform.redis.seedNodes,
    layout: platform.layout,
  });

  return async () => {
    await new Promise<void>((resolve) => control.close(() => resolve()));
    await platform.stop();
    await smtp.close();
    await cleanUp(platform.databaseUrl);
  };
}
