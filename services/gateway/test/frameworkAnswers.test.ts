// Protects §3 at the HTTP layer's own edges: what fastify or Node reject before any route runs (a bad URL, a wrong media type, a body too large, an unknown route, unreadable HTTP) is still the contract's problem+json with X-Request-Id, no-store and nosniff, on both listeners, through inject and through a real socket.
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { createApp } from '../src/http/createApp.js';

async function listener(name: 'public' | 'admin'): Promise<FastifyInstance> {
  const app = await createApp({
    name,
    logger: pino({ level: 'silent' }),
    title: 'test',
    description: 'test',
    readiness: [],
    isShuttingDown: () => false,
    securitySchemes: {},
    components: z.registry<{ id: string }>(),
  });
  app.post('/things/:thingId', { schema: { body: z.object({ name: z.string() }).strict() } }, async (request) => ({ got: request.body }));
  app.get('/things/:thingId', async (request) => ({ thingId: (request.params as { thingId: string }).thingId }));
  return app;
}

interface Raw {
  status: number;
  headers: Record<string, string>;
  body: any;
}

/** One request written byte for byte on a socket, so nothing on the client side fixes the URL first. */
function rawRequest(port: number, head: string, body = ''): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [headText = '', bodyText = ''] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = headText.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: bodyText ? JSON.parse(bodyText) : undefined });
    });
    socket.end(`${head}\r\nhost: localhost\r\nconnection: close\r\n${body ? `content-length: ${Buffer.byteLength(body)}\r\n` : ''}\r\n${body}`);
  });
}

function expectProblem(answer: { status: number; headers: Record<string, unknown>; body: any }, status: number, code: string): void {
  expect(answer.status).toBe(status);
  expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(answer.headers['x-request-id']).toMatch(/^req_[0-9a-z]{26}$/);
  expect(answer.headers['cache-control']).toBe('no-store');
  expect(answer.headers['x-content-type-options']).toBe('nosniff');
  expect(answer.body).toMatchObject({ status, code, type: expect.stringMatching(/^\/problems\//), title: expect.any(String), detail: expect.any(String) });
  expect(answer.body.requestId).toBe(answer.headers['x-request-id']);
}

const json = { 'content-type': 'application/json' };

for (const name of ['public', 'admin'] as const) {
  describe(`the ${name} listener's own answers`, () => {
    let app: FastifyInstance;
    let port: number;
    const inject = async (options: InjectOptions) => {
      const answer = await app.inject(options);
      return { status: answer.statusCode, headers: answer.headers as Record<string, unknown>, body: answer.body ? answer.json() : undefined };
    };
    beforeAll(async () => {
      app = await listener(name);
      await app.listen({ port: 0, host: '127.0.0.1' });
      port = (app.server.address() as AddressInfo).port;
    });
    afterAll(() => app.close());

    it('when a path has broken percent-encoding, then 400 VALIDATION_ERROR naming the path', async () => {
      for (const answer of [await inject({ url: '/things/%E0%A4%A' }), await rawRequest(port, 'GET /things/%E0%A4%A HTTP/1.1')]) {
        expectProblem(answer, 400, 'VALIDATION_ERROR');
        expect(answer.body.detail).toContain('/things/%E0%A4%A');
        expect(answer.body.errors).toEqual([{ path: 'path', message: expect.stringContaining('%E0%A4%A') }]);
      }
    });

    it('when a body is sent as text/plain, even one that looks like JSON, then 415 UNSUPPORTED_MEDIA_TYPE', async () => {
      expectProblem(await inject({ method: 'POST', url: '/things/1', headers: { 'content-type': 'text/plain' }, payload: '{"name":"x"}' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
      expectProblem(await rawRequest(port, 'POST /things/1 HTTP/1.1\r\ncontent-type: text/plain', '{"name":"x"}'), 415, 'UNSUPPORTED_MEDIA_TYPE');
    });

    it('when a body comes with no Content-Type or a form type, then 415', async () => {
      expectProblem(await rawRequest(port, 'POST /things/1 HTTP/1.1', '{"name":"x"}'), 415, 'UNSUPPORTED_MEDIA_TYPE');
      expectProblem(await inject({ method: 'POST', url: '/things/1', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'name=x' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    });

    it('when the body is application/json with a charset, then the route answers', async () => {
      const answer = await inject({ method: 'POST', url: '/things/1', headers: { 'content-type': 'application/json; charset=utf-8' }, payload: '{"name":"x"}' });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ got: { name: 'x' } });
      expect(answer.headers['cache-control']).toBe('no-store');
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
    });

    it('when the body is over 16 KiB, then 413 PAYLOAD_TOO_LARGE', async () => {
      const big = JSON.stringify({ name: 'x'.repeat(17 * 1024) });
      expectProblem(await inject({ method: 'POST', url: '/things/1', headers: json, payload: big }), 413, 'PAYLOAD_TOO_LARGE');
      expectProblem(await rawRequest(port, 'POST /things/1 HTTP/1.1\r\ncontent-type: application/json', big), 413, 'PAYLOAD_TOO_LARGE');
    });

    it('when the body is not JSON, then 400 MALFORMED_JSON', async () => {
      expectProblem(await inject({ method: 'POST', url: '/things/1', headers: json, payload: '{"name": ' }), 400, 'MALFORMED_JSON');
      expectProblem(await rawRequest(port, 'POST /things/1 HTTP/1.1\r\ncontent-type: application/json', '{"name": '), 400, 'MALFORMED_JSON');
    });

    it('when a body string holds a NUL character (which Postgres cannot store), then 400 VALIDATION_ERROR naming the field, not a 500', async () => {
      const answer = await inject({ method: 'POST', url: '/things/1', headers: json, payload: '{"name":"a\\u0000b"}' });
      expectProblem(answer, 400, 'VALIDATION_ERROR');
      expect(answer.body.errors).toEqual([{ path: 'name', message: expect.stringContaining('NUL') }]);
      // An escaped backslash before u0000 is text, not a NUL: it reaches the route.
      expect((await inject({ method: 'POST', url: '/things/1', headers: json, payload: '{"name":"a\\\\u0000b"}' })).status).toBe(200);
    });

    it('when the URL holds %00, then 404 in the path and 400 in the query', async () => {
      expectProblem(await inject({ url: '/things/a%00b' }), 404, 'NOT_FOUND');
      expectProblem(await rawRequest(port, 'GET /things/1?x=%00 HTTP/1.1'), 400, 'VALIDATION_ERROR');
    });

    it('when the route or the method is unknown, then 404 NOT_FOUND', async () => {
      expectProblem(await inject({ url: '/no/such/route' }), 404, 'NOT_FOUND');
      expectProblem(await inject({ method: 'DELETE', url: '/things/1' }), 404, 'NOT_FOUND');
      expectProblem(await rawRequest(port, 'PATCH /things/1 HTTP/1.1'), 404, 'NOT_FOUND');
    });

    it('when a path parameter is longer than any id, then 404 NOT_FOUND, not 414', async () => {
      expectProblem(await inject({ url: `/things/${'a'.repeat(1_100)}` }), 404, 'NOT_FOUND');
    });

    it('when the request is not readable HTTP or its headers are too large, then 400 problem+json on the socket', async () => {
      expectProblem(await rawRequest(port, 'GARBAGE'), 400, 'VALIDATION_ERROR');
      expectProblem(await rawRequest(port, `GET /things/1 HTTP/1.1\r\nx-big: ${'a'.repeat(20_000)}`), 400, 'VALIDATION_ERROR');
    });

    it('when any answer is given, including the OpenAPI document and probes, then it is no-store and nosniff', async () => {
      for (const url of ['/openapi.json', '/healthz', '/things/1']) {
        const answer = await inject({ url });
        expect(answer.status).toBe(200);
        expect(answer.headers['cache-control']).toBe('no-store');
        expect(answer.headers['x-content-type-options']).toBe('nosniff');
      }
    });
  });
}
