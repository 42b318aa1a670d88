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
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { generateKey, hashSecret } from '@esim/api-keys';
import { startLonelyGateway } from '../services/gateway/test/support/lonelyGateway.js';

const seconds = Number(process.env.BENCH_REFUSAL_SECONDS ?? 10);
const connections = Number(process.env.BENCH_REFUSAL_CONNECTIONS ?? 16);
const redisUrl = 'redis://127.0.0.1:6379';

const gateway = await startLonelyGateway('refusal', { logLevel: 'info', nodeEnv: 'development' });
const redis = new Redis(redisUrl);
try {
  const key = generateKey(false);
  const credential = { keyId: 'key_bench', partnerId: 'ptn_bench', livemode: false, secretHash: hashSecret(key.secret), scopes: ['orders:read'], revoked: false, partnerStatus: 'approved', tier: 'standard', cachedAtMs: Date.now() };
  await redis.set(`${gateway.namespace}:gateway:credential:{${key.prefix}}`, JSON.stringify(credential), 'EX', 600);
  const url = `${gateway.publicUrl}/api/v1/partner/orders/ord_00000000000000000000000000`;
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
  await redis.quit();
  await gateway.stop();
}
