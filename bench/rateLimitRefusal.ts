/**
 * What a 429 costs the gateway, alone: one gateway in this process (real
 * Redis and NATS, every backend down, the key's credential seeded in Redis),
 * one test key hammered by `connections` connections from a child process
 * (support/testLoadWorker.ts) on a GET. Past the key's 25 a second every
 * answer is 429 RATE_LIMITED; the rest reach a backend that is down (503).
 * This process's CPU per request is the gateway's, with tracing on
 * (telemetry/register) and its request log at info.
 *
 *   node --conditions=development --import tsx --import @esim/telemetry/register bench/rateLimitRefusal.ts > /dev/null
 *   BENCH_REFUSAL_SECONDS (default 10), BENCH_REFUSAL_CONNECTIONS (default 16); results on stderr
 */
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Redis } from 'ioredis';
import { generateKey, hashSecret } from '@esim/api-keys';
import { startService } from '@esim/service';
import { createLogger } from '@esim/telemetry';
import { gatewayService } from '../services/gateway/src/app.js';

const seconds = Number(process.env.BENCH_REFUSAL_SECONDS ?? 10);
const connections = Number(process.env.BENCH_REFUSAL_CONNECTIONS ?? 16);
const natsUrl = 'nats://127.0.0.1:4222';
const redisUrl = 'redis://127.0.0.1:6379';

const closedPort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

const ns = `refusal${randomBytes(4).toString('hex')}`;
const down = async () => `127.0.0.1:${await closedPort()}`;
const gateway = await startService(gatewayService, {
  logger: createLogger('gateway', 'info'),
  env: {
    NODE_ENV: 'development',
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
const redis = new Redis(redisUrl);
try {
  const key = generateKey(false);
  const credential = { keyId: 'key_bench', partnerId: 'ptn_bench', livemode: false, secretHash: hashSecret(key.secret), scopes: ['orders:read'], revoked: false, partnerStatus: 'approved', tier: 'standard', cachedAtMs: Date.now() };
  await redis.set(`${ns}:gateway:credential:{${key.prefix}}`, JSON.stringify(credential), 'EX', 600);
  const url = `http://127.0.0.1:${gateway.ports.http.public}/api/v1/partner/orders/ord_00000000000000000000000000`;
  const child = fork(fileURLToPath(new URL('./support/testLoadWorker.ts', import.meta.url)), [url, key.key, '-', String(connections)], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const ask = (question: string) => new Promise<{ sent: number; limited: number }>((resolve) => (child.once('message', (m) => resolve(m as never)), child.send(question)));
  await new Promise((resolve) => child.once('message', resolve));
  await new Promise((r) => setTimeout(r, 2_000));
  const before = { counts: await ask('counts'), cpu: process.cpuUsage() };
  await new Promise((r) => setTimeout(r, seconds * 1_000));
  const cpu = process.cpuUsage(before.cpu);
  const after = await ask('counts');
  await ask('stop');
  const sent = after.sent - before.counts.sent;
  const limited = after.limited - before.counts.limited;
  const cpuMs = (cpu.user + cpu.system) / 1000;
  process.stderr.write(`refusal: ${sent} requests in ${seconds} s, ${limited} × 429, gateway ${cpuMs.toFixed(0)} ms CPU, ${(cpuMs / sent).toFixed(3)} ms per request\n`);
} finally {
  await gateway.close();
  const nc = await connect({ servers: natsUrl });
  const jsm = await jetstreamManager(nc);
  for await (const stream of jsm.streams.list()) if (stream.config.name.startsWith(`${ns.toUpperCase()}_`)) await jsm.streams.delete(stream.config.name);
  await nc.close();
  const keys = await redis.keys(`${ns}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
}
