import { createHash } from 'node:crypto';
import pg from 'pg';
import { runner } from 'node-pg-migrate';

/** One advisory lock per schema: services migrate in parallel, replicas of one service in turn. */
function lockValueOf(schema: string): number {
  return createHash('sha256').update(`migrations:${schema}`).digest().readInt32BE(0);
}

/**
 * Creates the database named in `connectionString` when it does not exist.
 * Two processes racing here is fine: the loser sees 42P04 (duplicate database).
 */
export async function ensureDatabase(connectionString: string): Promise<void> {
  const url = new URL(connectionString);
  const database = decodeURIComponent(url.pathname.slice(1));
  url.pathname = '/postgres';
  const client = new pg.Client({ connectionString: url.toString(), connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (exists.rowCount === 0) {
      await client.query(`CREATE DATABASE ${pg.escapeIdentifier(database)}`).catch((error: { code?: string }) => {
        if (error.code !== '42P04' && error.code !== '23505') throw error;
      });
    }
  } finally {
    await client.end();
  }
}

/**
 * Applies a service's SQL migrations (`migrations/*.sql`) to its own schema.
 * node-pg-migrate holds a Postgres advisory lock while it runs and, in
 * `wait` mode, a replica starting at the same moment waits for it and then
 * finds nothing left to apply. `table` keeps a separate record for a set of
 * migrations shared by every schema (the event tables), so their order is
 * checked apart from the service's own.
 */
export async function migrate(options: { connectionString: string; schema: string; dir: string; table?: string }): Promise<void> {
  await ensureDatabase(options.connectionString);
  await runner({
    databaseUrl: options.connectionString,
    dir: options.dir,
    direction: 'up',
    schema: options.schema,
    createSchema: true,
    migrationsSchema: options.schema,
    createMigrationsSchema: true,
    migrationsTable: options.table ?? 'pgmigrations',
    checkOrder: true,
    lockValue: lockValueOf(options.schema),
    advisoryLockMode: 'wait',
    log: () => {},
  });
}

/**
 * The migrations in `dir` that `schema` has not recorded as applied, by name
 * (node-pg-migrate's: the file name without its extension), in order. A
 * service started with MIGRATE=off asks this instead of migrating: it reads
 * one table, so it works through PgBouncer and with a role that has no DDL
 * rights. A schema not created yet has every migration pending.
 */
export async function pendingMigrations(options: { connectionString: string; schema: string; dir: string; table?: string }): Promise<string[]> {
  const { readdir } = await import('node:fs/promises');
  const names = (await readdir(options.dir))
    .filter((file) => /\.(sql|js|cjs|mjs|ts)$/.test(file) && !file.endsWith('.d.ts'))
    .map((file) => file.replace(/\.[^.]+$/, ''))
    .sort();
  const client = new pg.Client({ connectionString: options.connectionString, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    const table = `${pg.escapeIdentifier(options.schema)}.${pg.escapeIdentifier(options.table ?? 'pgmigrations')}`;
    const applied = await client.query<{ name: string }>(`SELECT name FROM ${table}`).then(
      ({ rows }) => new Set(rows.map((row) => row.name)),
      (error: { code?: string }) => {
        if (error.code === '42P01' || error.code === '3F000') return new Set<string>(); // no table or no schema yet
        throw error;
      },
    );
    return names.filter((name) => !applied.has(name));
  } finally {
    await client.end();
  }
}
