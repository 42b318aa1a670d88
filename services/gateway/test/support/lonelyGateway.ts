import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Redis } from 'ioredis';
import { startService } from '@esim/service';
import { createLogger } from '@esim/telemetry';
import { gatewayService } from '../../src/app.js';

const natsUrl = 'nats://127.0.0.1:4222';
const redisUrl = 'redis://127.0.0.1:6379';

export interface LonelyGateway {
  /** The platform namespace of its NATS streams and Redis keys (a test seeds a credential under it). */
  namespace: string;
  publicUrl: string;
  adminUrl: string;
  adminToken: string;
  /** Stops the gateway and removes its namespace's streams and Redis keys. */
  stop(): Promise<void>;
}

/** A port nothing listens on: a backend that is "down". */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * The gateway on the real NATS and Redis with every backend down, under a
 * namespace of its own (`prefix` + random): what the gateway answers by
 * itself (readiness, 503s, 404s, its OpenAPI documents).
 */
export async function startLonelyGateway(
  prefix: string,
  /** A benchmark wants the request log a deployment writes (`info`) and development's settings. */
  options: { logLevel?: 'silent' | 'info'; nodeEnv?: 'test' | 'development' } = {},
): Promise<LonelyGateway> {
  const ns = `${prefix}${randomBytes(5).toString('hex')}`;
  const adminToken = `adm_${randomBytes(24).toString('base64url')}`;
  const down = async () => `127.0.0.1:${await closedPort()}`;
  const gateway = await startService(gatewayService, {
    logger: createLogger('gateway', options.logLevel ?? 'silent'),
    env: {
      NODE_ENV: options.nodeEnv ?? 'test',
      NATS_URL: natsUrl,
      REDIS_URL: redisUrl,
      PLATFORM_NAMESPACE: ns,
      HOST: '127.0.0.1',
      PORT: '0',
      ADMIN_PORT: '0',
      ADMIN_TOKEN: adminToken,
      JWT_SECRET: randomBytes(32).toString('base64'),
      PARTNERS_ADDR: await down(),
      CATALOG_ADDR: await down(),
      WALLET_ADDR: await down(),
      ORDERS_ADDR: await down(),
    },
  });
  return {
    namespace: ns,
    publicUrl: `http://127.0.0.1:${gateway.ports.http.public}`,
    adminUrl: `http://127.0.0.1:${gateway.ports.http.admin}`,
    adminToken,
    async stop() {
      await gateway.close();
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
    },
  };
}
