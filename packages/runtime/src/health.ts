import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppError, problemBody } from '@esim/errors';
import { serveMetrics } from '@esim/telemetry';

/** A dependency the process cannot serve without; it throws when unreachable. */
export interface ReadinessCheck {
  name: string;
  check: () => Promise<unknown>;
}

const checkTimeoutMs = 2_000;

/** Runs every check under one timeout; the result names each dependency. */
export async function runReadiness(checks: ReadinessCheck[]): Promise<{ ready: boolean; checks: Record<string, string> }> {
  const results = await Promise.all(
    checks.map(async ({ name, check }) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timed out')), checkTimeoutMs);
      });
      try {
        await Promise.race([check(), timeout]);
        return [name, 'ok'] as const;
      } catch {
        return [name, 'unreachable'] as const;
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  return { ready: results.every(([, state]) => state === 'ok'), checks: Object.fromEntries(results) };
}

export interface HealthServer {
  port: number;
  /** Readiness answers 503 from now on, so load balancers drain us first. */
  markShuttingDown(): void;
  close(): Promise<void>;
}

/**
 * Who answers /readyz: the platform namespace and this process's boot id,
 * sent as headers (the body stays the contract's). The launcher accepts no
 * readiness without its own values: a stranger holding the port is not ready.
 */
export interface ProcessIdentity {
  namespace: string;
  bootId: string;
}

export const identityHeaders = (identity: ProcessIdentity | undefined): Record<string, string> =>
  identity ? { 'x-platform-namespace': identity.namespace, 'x-boot-id': identity.bootId } : {};

/**
 * /healthz (alive), /readyz (dependencies reachable) and /metrics for
 * processes that have no HTTP API of their own: gRPC services and workers.
 */
export async function startHealthServer(options: { port: number; host?: string; checks: ReadinessCheck[]; identity?: ProcessIdentity }): Promise<HealthServer> {
  let shuttingDown = false;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    } else if (path === '/readyz') {
      void runReadiness(options.checks).then(({ ready, checks }) => {
        const ok = ready && !shuttingDown;
        const body = ok
          ? { status: 'ready', checks }
          : { ...problemBody(new AppError('UNAVAILABLE', shuttingDown ? 'Shutting down.' : 'A dependency is unreachable.')), checks };
        res
          .writeHead(ok ? 200 : 503, { 'content-type': ok ? 'application/json' : 'application/problem+json', ...identityHeaders(options.identity) })
          .end(JSON.stringify(body));
      });
    } else if (path === '/metrics') {
      serveMetrics(req, res);
    } else {
      res.writeHead(404, { 'content-type': 'application/problem+json' }).end(
        JSON.stringify(problemBody(new AppError('NOT_FOUND', `No route ${req.method ?? 'GET'} ${path}.`))),
      );
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '0.0.0.0', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    markShuttingDown: () => {
      shuttingDown = true;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
