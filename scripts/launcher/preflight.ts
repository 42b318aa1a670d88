import { connect as connectTcp } from 'node:net';
import { connect as connectNats } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { ensureDatabase } from '@esim/postgres';

/** A dependency the platform cannot start without, and how to bring it up. */
class Unreachable extends Error {}

function redisPing(url: string): Promise<void> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connectTcp({ host: hostname, port: Number(port || 6379), timeout: 3_000 });
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      data.toString().startsWith('+PONG') || data.toString().startsWith('-NOAUTH') ? resolve() : reject(new Error(data.toString()));
    });
    socket.once('timeout', () => (socket.destroy(), reject(new Error('timed out'))));
    socket.once('error', reject);
  });
}

async function natsWithJetStream(url: string): Promise<void> {
  const nc = await connectNats({ servers: url.split(',').map((entry) => entry.trim()), timeout: 3_000, maxReconnectAttempts: 0 });
  try {
    await jetstreamManager(nc, { timeout: 3_000 }).then((jsm) => jsm.getAccountInfo());
  } catch {
    throw new Unreachable(`NATS at ${url} answers but JetStream is not enabled.\n  Start it with JetStream: nats-server -js -sd /var/lib/nats-server`);
  } finally {
    await nc.close();
  }
}

/**
 * Checks Postgres, Redis and NATS before any service starts, so a missing
 * dependency is one clear sentence instead of four stack traces; then
 * creates the database when it does not exist.
 */
export async function preflight(env: { DATABASE_URL: string; REDIS_URL: string; NATS_URL: string; REDIS_CLUSTER_NODES?: string }): Promise<void> {
  const problems: string[] = [];
  await ensureDatabase(env.DATABASE_URL).catch((error: Error) =>
    problems.push(
      `Postgres is unreachable at ${new URL(env.DATABASE_URL).host} (DATABASE_URL): ${error.message}\n` +
        '  Start it: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start',
    ),
  );
  // With REDIS_CLUSTER_NODES, REDIS_URL is not used at all: one answering seed node is enough to start.
  const clusterSeeds = env.REDIS_CLUSTER_NODES?.split(',').map((node) => node.trim()).filter(Boolean) ?? [];
  if (clusterSeeds.length > 0) {
    await Promise.any(clusterSeeds.map((node) => redisPing(`redis://${node}`))).catch((error: AggregateError) =>
      problems.push(`No Redis Cluster seed node answers (REDIS_CLUSTER_NODES=${env.REDIS_CLUSTER_NODES}): ${error.errors.map((e: Error) => e.message).join('; ')}`),
    );
  } else {
    await redisPing(env.REDIS_URL).catch((error: Error) =>
      problems.push(
        `Redis is unreachable at ${new URL(env.REDIS_URL).host} (REDIS_URL): ${error.message}\n` +
          '  Start it: redis-server --daemonize yes --port 6379',
      ),
    );
  }
  await natsWithJetStream(env.NATS_URL).catch((error: Error) =>
    problems.push(
      error instanceof Unreachable
        ? error.message
        : `NATS is unreachable at ${env.NATS_URL} (NATS_URL): ${error.message}\n  Start it: nats-server -js -sd /var/lib/nats-server`,
    ),
  );
  if (problems.length > 0) throw new Error(`The platform cannot start:\n\n${problems.join('\n\n')}`);
}
