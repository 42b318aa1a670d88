// Boots a gateway whose backends are all down (no service needed) and reads the documents it serves:
// what a partner's tooling would download. Used by the lint, SDK drift and AsyncAPI tests.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { startService } from '@esim/service';
import { createLogger } from '@esim/telemetry';
import { gatewayService } from '../../services/gateway/src/app.js';

const natsUrl = 'nats://127.0.0.1:4222';

function closedPort(): Promise<string> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(`127.0.0.1:${port}`));
    });
  });
}

export interface ServedDocuments {
  partner: any;
  admin: any;
  asyncapi: any;
}

export async function readServedDocuments(): Promise<ServedDocuments> {
  const ns = `gwdocs${randomBytes(5).toString('hex')}`;
  const gateway = await startService(gatewayService, {
    logger: createLogger('gateway', 'silent'),
    env: {
      NODE_ENV: 'test',
      NATS_URL: natsUrl,
      PLATFORM_NAMESPACE: ns,
      HOST: '127.0.0.1',
      PORT: '0',
      ADMIN_PORT: '0',
      ADMIN_TOKEN: `adm_${randomBytes(24).toString('base64url')}`,
      JWT_SECRET: randomBytes(32).toString('base64'),
      PARTNERS_ADDR: await closedPort(),
      CATALOG_ADDR: await closedPort(),
      WALLET_ADDR: await closedPort(),
      ORDERS_ADDR: await closedPort(),
      WEBHOOKS_ADDR: await closedPort(),
    },
  });
  try {
    const read = async (listener: 'public' | 'admin', path: string) => {
      const response = await fetch(`http://127.0.0.1:${gateway.ports.http[listener]}${path}`);
      if (!response.ok) throw new Error(`${path} answered ${response.status}`);
      return response.json();
    };
    return {
      partner: await read('public', '/openapi.json'),
      admin: await read('admin', '/openapi.json'),
      asyncapi: await read('public', '/asyncapi.json').catch(() => null),
    };
  } finally {
    await gateway.close();
    const nc = await connect({ servers: natsUrl });
    const jsm = await jetstreamManager(nc);
    for await (const stream of jsm.streams.list()) {
      if (stream.config.name.startsWith(`${ns.toUpperCase()}_`)) await jsm.streams.delete(stream.config.name);
    }
    await nc.close();
  }
}
