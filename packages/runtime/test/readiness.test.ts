// Protects what probes read beyond health.test.ts: readiness names the one failing dependency among healthy ones without its error text, a hanging check counts as unreachable, readiness recovers, and liveness ignores both.
import { runReadiness, startHealthServer, type HealthServer, type ReadinessCheck } from '@esim/runtime';
import { afterEach, describe, expect, it } from 'vitest';

const servers: HealthServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function serve(checks: ReadinessCheck[]): Promise<{ server: HealthServer; get(path: string): Promise<{ status: number; type: string; body: any; text: string }> }> {
  const server = await startHealthServer({ port: 0, host: '127.0.0.1', checks });
  servers.push(server);
  return {
    server,
    async get(path) {
      const response = await fetch(`http://127.0.0.1:${server.port}${path}`);
      const text = await response.text();
      return { status: response.status, type: response.headers.get('content-type') ?? '', body: text.startsWith('{') ? JSON.parse(text) : undefined, text };
    },
  };
}

const ok = (name: string): ReadinessCheck => ({ name, check: async () => 'fine' });
const down = (name: string): ReadinessCheck => ({
  name,
  check: async () => {
    throw new Error('ECONNREFUSED 10.0.0.7:5432');
  },
});

describe('readiness', () => {
  it('when one of several dependencies fails, then /readyz names it unreachable and the others ok, without the error text', async () => {
    const { get } = await serve([ok('postgres'), down('nats'), ok('redis')]);
    const answer = await get('/readyz');
    expect(answer.status).toBe(503);
    expect(answer.body.checks).toEqual({ postgres: 'ok', nats: 'unreachable', redis: 'ok' });
    expect(answer.text).not.toContain('ECONNREFUSED');
    expect(answer.text).not.toContain('10.0.0.7');
  });

  it('when a dependency hangs, then it is reported unreachable once the check times out, beside the ones that answered', async () => {
    const verdict = await runReadiness([ok('postgres'), { name: 'redis', check: () => new Promise(() => {}) }]);
    expect(verdict).toEqual({ ready: false, checks: { postgres: 'ok', redis: 'unreachable' } });
  });

  it('when the dependency recovers, then the next /readyz is 200 again', async () => {
    let healthy = false;
    const { get } = await serve([
      {
        name: 'catalog',
        check: async () => {
          if (!healthy) throw new Error('down');
        },
      },
    ]);
    expect((await get('/readyz')).status).toBe(503);
    healthy = true;
    expect(await get('/readyz')).toMatchObject({ status: 200, body: { status: 'ready', checks: { catalog: 'ok' } } });
  });
});

describe('liveness and metrics', () => {
  it('when a dependency is down or shutdown has begun, then /healthz still answers 200 {"status":"ok"}', async () => {
    const { server, get } = await serve([down('postgres')]);
    expect(await get('/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });
    server.markShuttingDown();
    expect(await get('/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });
  });

  it('when /metrics is asked, then it answers Prometheus text', async () => {
    const { get } = await serve([]);
    const answer = await get('/metrics');
    expect(answer.status).toBe(200);
    expect(answer.type).toMatch(/^text\/plain/);
  });
});
