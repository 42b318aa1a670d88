// Protects schema migrations at boot: replicas starting together apply each migration once, a restart applies nothing twice, and a later migration is picked up.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPool, ensureDatabase, migrate } from '@esim/postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './support/database.js';

const databases: TestDatabase[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const database of databases) await database.drop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function migrationsDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'esim-migrations-'));
  dirs.push(dir);
  for (const [name, sql] of Object.entries(files)) writeFileSync(join(dir, name), sql);
  return dir;
}

// Not idempotent on purpose: applying it twice fails with "already exists".
const first = '-- Up Migration\nCREATE TABLE accounts (id text PRIMARY KEY);\n-- Down Migration\nDROP TABLE accounts;\n';
const second = '-- Up Migration\nALTER TABLE accounts ADD COLUMN balance bigint NOT NULL DEFAULT 0;\n-- Down Migration\nALTER TABLE accounts DROP COLUMN balance;\n';

async function applied(url: string, schema: string): Promise<string[]> {
  const pool = createPool(url, { applicationName: 'migrate-test', max: 1 });
  try {
    const { rows } = await pool.query<{ name: string }>(`SELECT name FROM ${schema}.pgmigrations ORDER BY run_on, id`);
    return rows.map((r) => r.name);
  } finally {
    await pool.end();
  }
}

describe('migrate', () => {
  it('when three replicas migrate the same schema at once, then each migration runs once and all of them succeed', async () => {
    const database = await createTestDatabase('migrate', { create: false });
    databases.push(database);
    const dir = migrationsDir({ '1700000000001_accounts.sql': first, '1700000000002_balance.sql': second });
    await Promise.all([1, 2, 3].map(() => migrate({ connectionString: database.url, schema: 'wallet', dir })));
    expect(await applied(database.url, 'wallet')).toEqual(['1700000000001_accounts', '1700000000002_balance']);
  });

  it('when a service restarts with one more migration, then only the new one runs', async () => {
    const database = await createTestDatabase('migrate');
    databases.push(database);
    await migrate({ connectionString: database.url, schema: 'orders', dir: migrationsDir({ '1700000000001_accounts.sql': first }) });
    const dir = migrationsDir({ '1700000000001_accounts.sql': first, '1700000000002_balance.sql': second });
    await migrate({ connectionString: database.url, schema: 'orders', dir });
    await migrate({ connectionString: database.url, schema: 'orders', dir });
    expect(await applied(database.url, 'orders')).toEqual(['1700000000001_accounts', '1700000000002_balance']);
  });

  it('when two schemas in one database migrate, then each keeps its own tables and record', async () => {
    const database = await createTestDatabase('migrate');
    databases.push(database);
    const dir = migrationsDir({ '1700000000001_accounts.sql': first });
    await Promise.all(['alpha', 'beta'].map((schema) => migrate({ connectionString: database.url, schema, dir })));
    expect(await applied(database.url, 'alpha')).toEqual(['1700000000001_accounts']);
    expect(await applied(database.url, 'beta')).toEqual(['1700000000001_accounts']);
  });
});

describe('ensureDatabase', () => {
  it('when several processes ensure the same new database at once, then it exists and none of them fails', async () => {
    const database = await createTestDatabase('ensure', { create: false });
    databases.push(database);
    await Promise.all([1, 2, 3, 4].map(() => ensureDatabase(database.url)));
    const pool = createPool(database.url, { applicationName: 'ensure-test', max: 1 });
    try {
      expect((await pool.query('SELECT current_database() AS name')).rows[0].name).toBe(database.name);
    } finally {
      await pool.end();
    }
  });
});
