import pg from 'pg';

/** Drops the run's database; the NATS and Redis clusters went with their temp folders. */
export async function cleanUp(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const database = url.pathname.slice(1);
  url.pathname = '/postgres';
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  await client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [database]);
  await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(database)}`);
  await client.end();
}
