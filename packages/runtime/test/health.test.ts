// Protects the health port's answers every gRPC service and worker gives probes: 200 when ready, and §3 problem bodies for 503 and unknown paths.
import { afterEach, describe, expect, it } from 'vitest';
import { startHealthServer, type HealthServer } from '../src/health.js';

let server: HealthServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function get(path: string) {
  const response = await fetch(`http://127.0.0.1:${server!.port}${path}`);
  return { status: response.status, type: response.headers.get('content-type'), body: await response.json() };
}

describe('health server', () => {
  it('when every check passes, then /readyz is 200 naming each check', async () => {
    server = await startHealthServer({ port: 0, host: '127.0.0.1', checks: [{ name: 'postgres', check: async () => 1 }] });
    expect(await get('/readyz')).toEqual({ status: 200, type: 'application/json', body: { status: 'ready', checks: { postgres: 'ok' } } });
  });

  it('when it knows who it is, then /readyz names its namespace and boot id in headers, the body unchanged', async () => {
    server = await startHealthServer({ port: 0, host: '127.0.0.1', checks: [], identity: { namespace: 'esim', bootId: 'boot-1' } });
    const response = await fetch(`http://127.0.0.1:${server.port}/readyz`);
    expect(response.headers.get('x-platform-namespace')).toBe('esim');
    expect(response.headers.get('x-boot-id')).toBe('boot-1');
    expect(await response.json()).toEqual({ status: 'ready', checks: {} });
  });

  it('when a check fails, then /readyz is a 503 UNAVAILABLE problem naming the unreachable dependency', async () => {
    server = await startHealthServer({ port: 0, host: '127.0.0.1', checks: [{ name: 'nats', check: () => Promise.reject(new Error('down')) }] });
    const answer = await get('/readyz');
    expect(answer.status).toBe(503);
    expect(answer.type).toBe('application/problem+json');
    expect(answer.body).toEqual({
      type: '/problems/unavailable',
      title: 'Service unavailable',
      status: 503,
      code: 'UNAVAILABLE',
      detail: 'A dependency is unreachable.',
      checks: { nats: 'unreachable' },
    });
  });

  it('when the process is shutting down, then /readyz is 503 even though every check passes', async () => {
    server = await startHealthServer({ port: 0, host: '127.0.0.1', checks: [] });
    server.markShuttingDown();
    const answer = await get('/readyz');
    expect(answer.status).toBe(503);
    expect(answer.body).toMatchObject({ code: 'UNAVAILABLE', detail: 'Shutting down.' });
  });

  it('when a path is unknown, then a 404 NOT_FOUND problem', async () => {
    server = await startHealthServer({ port: 0, host: '127.0.0.1', checks: [] });
    const answer = await get('/nope?x=1');
    expect(answer.status).toBe(404);
    expect(answer.type).toBe('application/problem+json');
    expect(answer.body).toEqual({ type: '/problems/not-found', title: 'Not found', status: 404, code: 'NOT_FOUND', detail: 'No route GET /nope.' });
  });
});
