// Protects §3's promise that every status the API can answer is in its OpenAPI document: each operation of both documents lists the statuses the HTTP layer can give on it (400, 413/415 where a body is read, 404 where an id is named, 503), each as application/problem+json.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '@esim/service';
import { createLogger } from '@esim/telemetry';
import { gatewayService } from '../src/app.js';
import type { Config } from '../src/config.js';
import { edgeStatuses } from '../src/http/edgeProblems.js';

const natsUrl = 'nats://127.0.0.1:4222';
const redisUrl = 'redis://127.0.0.1:6379';
const ns = `gwdoc${randomBytes(5).toString('hex')}`;

const closedPort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

let gateway: RunningService<Config>;
const documents: Record<string, any> = {};

beforeAll(async () => {
  const down = async () => `127.0.0.1:${await closedPort()}`;
  gateway = await startService(gatewayService, {
    logger: createLogger('gateway', 'silent'),
    env: {
      NODE_ENV: 'test',
      NATS_URL: natsUrl,
      REDIS_URL: redisUrl,
      PLATFORM_NAMESPACE: ns,
      HOST: '127.0.0.1',
      PORT: '0',
      ADMIN_PORT: '0',
      ADMIN_TOKEN: `adm_${randomBytes(24).toString('base64url')}`,
      JWT_SECRET: randomBytes(32).toString('base64'),
      PARTNERS_ADDR: await down(),
      CATALOG_ADDR: await down(),
      WALLET_ADDR: await down(),
      ORDERS_ADDR: await down(),
    },
  });
  for (const [name, port] of Object.entries({ public: gateway.ports.http.public, admin: gateway.ports.http.admin })) {
    documents[name] = await (await fetch(`http://127.0.0.1:${port}/openapi.json`)).json();
  }
});

afterAll(async () => {
  await gateway?.close();
  const nc = await connect({ servers: natsUrl });
  const jsm = await jetstreamManager(nc);
  for await (const stream of jsm.streams.list()) {
    if (stream.config.name.startsWith(`${ns.toUpperCase()}_`)) await jsm.streams.delete(stream.config.name);
  }
  await nc.close();
  const redis = new Redis(redisUrl);
  const keys = await redis.keys(`${ns}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

const httpMethods = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

describe.each(['public', 'admin'])('the %s OpenAPI document', (name) => {
  it('when each operation is walked, then it lists every status the HTTP layer can answer on it, as problem+json', () => {
    const paths = Object.entries(documents[name].paths as Record<string, Record<string, any>>);
    expect(paths.length).toBeGreaterThan(5);
    let walked = 0;
    for (const [path, item] of paths) {
      for (const [method, operation] of Object.entries(item).filter(([m]) => httpMethods.includes(m))) {
        walked += 1;
        const where = `${method.toUpperCase()} ${path}`;
        const expected = edgeStatuses({ method: method.toUpperCase() as 'GET', url: path.replaceAll(/\{(\w+)\}/g, ':$1') });
        expect(expected, where).toContain(400);
        if (method !== 'get') expect(expected, where).toEqual(expect.arrayContaining([413, 415]));
        if (path.includes('{')) expect(expected, where).toContain(404);
        for (const status of expected) {
          const response = operation.responses?.[String(status)];
          expect(response, `${where} documents ${status}`).toBeDefined();
          expect(Object.keys(response.content), `${where} ${status}`).toEqual(['application/problem+json']);
          expect(response.content['application/problem+json'].schema.$ref).toBe('#/components/schemas/Problem');
        }
        // Every documented error, not only the edge ones, is problem+json naming its codes.
        for (const [status, response] of Object.entries(operation.responses as Record<string, any>)) {
          if (Number(status) >= 400) {
            expect(Object.keys(response.content), `${where} ${status}`).toEqual(['application/problem+json']);
            expect(response.description, `${where} ${status}`).toMatch(/^Problem \(RFC 9457\); code [A-Z_]+/);
          }
        }
      }
    }
    expect(walked).toBeGreaterThan(5);
  });

  it('when the Problem schema is read, then it has the fields of §3', () => {
    const problem = documents[name].components.schemas.Problem;
    expect(problem.required).toEqual(expect.arrayContaining(['type', 'title', 'status', 'code', 'detail', 'requestId']));
  });
});
