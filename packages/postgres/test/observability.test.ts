// Protects what operators read about Postgres: the pool gauges on /metrics (size, in use, waiting) and the pending-migration check a MIGRATE=off pod waits on.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { metrics } from '@opentelemetry/api';
import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './support/database.js';

// The pool module creates its gauges at import: the provider must be global first.
const reader = new PrometheusExporter({ preventServerStart: true });
metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
const { createPool, migrate, pendingMigrations } = await import('@esim/postgres');

async function scrape(): Promise<string> {
  const { resourceMetrics } = await reader.collect();
  return new PrometheusSerializer().serialize(resourceMetrics);
}
const sample = (page: string, metric: string, pool: string) => {
  const line = page.split('\n').find((candidate) => candidate.startsWith(`${metric}{`) && candidate.includes(`pool="${pool}"`));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
};

let database: TestDatabase;
const dirs: string[] = [];
beforeAll(async () => {
  database = await createTestDatabase('pgobs');
});
afterAll(async () => {
  await database?.drop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('pool gauges', () => {
  it('when every connection of a pool is busy and more queries arrive, then /metrics shows it full, none idle and the queue waiting', async () => {
    const pool = createPool(database.url, { applicationName: 'gauged', max: 2 });
    const clients = [await pool.connect(), await pool.connect()];
    const queued = [pool.query('SELECT 1'), pool.query('SELECT 2'), pool.query('SELECT 3')];
    try {
      const page = await scrape();
      expect(sample(page, 'db_pool_connections', 'gauged')).toBe(2);
      expect(sample(page, 'db_pool_idle_connections', 'gauged')).toBe(0);
      expect(sample(page, 'db_pool_waiting_requests', 'gauged')).toBe(3);
      expect(sample(page, 'db_pool_max_connections', 'gauged')).toBe(2);
    } finally {
      for (const client of clients) client.release();
      await Promise.all(queued);
    }
    const drained = await scrape();
    expect(sample(drained, 'db_pool_waiting_requests', 'gauged')).toBe(0);
    expect(sample(drained, 'db_pool_idle_connections', 'gauged')).toBe(2);
    await pool.end();
  });
});

describe('pending migrations', () => {
  const dir = () => {
    const created = mkdtempSync(join(tmpdir(), 'esim-pending-'));
    dirs.push(created);
    writeFileSync(join(created, '1700000000001_first.sql'), '-- Up Migration\nCREATE TABLE a (id int);\n');
    return created;
  };

  it('when a schema was never migrated, then every migration is pending; once applied, none; a new file is pending again', async () => {
    const migrations = dir();
    const options = { connectionString: database.url, schema: 'pending_demo', dir: migrations };
    expect(await pendingMigrations(options)).toEqual(['1700000000001_first']);
    await migrate(options);
    expect(await pendingMigrations(options)).toEqual([]);
    writeFileSync(join(migrations, '1700000000002_second.sql'), '-- Up Migration\nCREATE TABLE b (id int);\n');
    expect(await pendingMigrations(options)).toEqual(['1700000000002_second']);
  });
});
