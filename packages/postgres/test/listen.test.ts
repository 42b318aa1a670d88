// Protects the LISTEN/NOTIFY wake-up the outbox relay and the webhook worker rely on: a notification arrives, a connection the server kills neither crashes the process nor leaks, and listening resumes.
import { createPool, listenFor, type Pool } from '@esim/postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './support/database.js';

let database: TestDatabase;
let pool: Pool;
let admin: Pool;

beforeAll(async () => {
  database = await createTestDatabase('listen');
  pool = createPool(database.url, { applicationName: 'listen-test', max: 2 });
  admin = createPool(database.url, { applicationName: 'listen-admin', max: 1 });
});
afterAll(async () => {
  await pool?.end();
  await admin?.end();
  await database?.drop();
});

const waitFor = async (check: () => boolean, ms = 3000) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};
const terminateListeners = () =>
  admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'listen-test' AND query ILIKE 'LISTEN%'");
const terminatePool = () => admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'listen-test'");

describe('listenFor', () => {
  it('when the server terminates the listening connection, then nothing throws, the connection leaves the pool once, and the next ensure() listens again', async () => {
    let notified = 0;
    const errors: unknown[] = [];
    const listener = listenFor(pool, 'wake_test', () => notified++, (error) => errors.push(error));
    await listener.ensure();
    expect(listener.listening()).toBe(true);
    await admin.query('NOTIFY wake_test');
    await waitFor(() => notified === 1);

    await terminateListeners();
    await waitFor(() => pool.totalCount === 0);
    // Callers poll slowly only while someone listens: a lost connection must say so.
    expect(listener.listening()).toBe(false);

    await listener.ensure();
    expect(listener.listening()).toBe(true);
    await admin.query('NOTIFY wake_test');
    await waitFor(() => notified === 2);
    await listener.stop();
    await listener.stop();
    expect(errors).toEqual([]);
    expect(pool.idleCount).toBe(pool.totalCount);
  });

  it('when stopped, then the connection is back in the pool and a later NOTIFY is not delivered', async () => {
    let notified = 0;
    const listener = listenFor(pool, 'wake_stop', () => notified++, () => {});
    await listener.ensure();
    await listener.stop();
    await listener.ensure();
    expect(pool.waitingCount).toBe(0);
    await admin.query('NOTIFY wake_stop');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(notified).toBe(0);
  });

  // As when a test database is dropped, or Postgres restarts, after shutdown.
  it('when the server terminates the connection after stop() gave it back, then it is dropped from the pool without an uncaught error', async () => {
    const uncaught: unknown[] = [];
    const record = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', record);
    try {
      const listener = listenFor(pool, 'wake_late', () => {}, () => {});
      await listener.ensure();
      await listener.stop();
      expect(pool.totalCount).toBeGreaterThan(0);
      await terminatePool();
      await waitFor(() => pool.totalCount === 0);
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      process.off('uncaughtException', record);
    }
    expect(uncaught).toEqual([]);
  });
});
