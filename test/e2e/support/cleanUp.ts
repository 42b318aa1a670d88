import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Redis } from 'ioredis';
import pg from 'pg';

/** Drops the run's database, its JetStream streams and its Redis keys: the suite leaves nothing behind. */
export async function cleanUp(run: { databaseUrl: string; namespace: string; redisUrl: string; natsUrl: string }): Promise<void> {
  const url = new URL(run.databaseUrl);
  const database = url.pathname.slice(1);
  url.pathname = '/postgres';
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  await client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [database]);
  await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(database)}`);
  await client.end();

  const nc = await connect({ servers: run.natsUrl });
  const jsm = await jetstreamManager(nc);
  for await (const stream of jsm.streams.list()) {
    if (stream.config.name.startsWith(`${run.namespace.toUpperCase()}_`)) await jsm.streams.delete(stream.config.name);
  }
  await nc.close();

  const redis = new Redis(run.redisUrl);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${run.namespace}:*`, 'COUNT', 500);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
  await redis.quit();
}
