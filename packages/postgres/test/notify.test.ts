// Protects the wake-ups sent after commit (notifyAfterCommit): the outbox relay and the webhook worker hear them only once the data they announce is committed, never for a rolled-back transaction, and the data commit itself no longer notifies (so it takes no database-wide lock while it flushes).
import { createPool, listenFor, notifyAfterCommit, withTransaction, type Pool } from '@esim/postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './support/database.js';

let database: TestDatabase;
let pool: Pool;
let listenPool: Pool;

beforeAll(async () => {
  database = await createTestDatabase('notify');
  pool = createPool(database.url, { applicationName: 'notify-test', max: 2 });
  listenPool = createPool(database.url, { applicationName: 'notify-listen', max: 3 });
  await pool.query('CREATE TABLE announced (id int primary key)');
});
afterAll(async () => {
  await pool?.end();
  await listenPool?.end();
  await database?.drop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const waitFor = async (check: () => boolean, ms = 3000) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(20);
  }
};

async function listening(channel: string) {
  const heard: number[] = [];
  const listener = listenFor(listenPool, channel, () => heard.push(Date.now()), () => {});
  await listener.ensure();
  return { heard, stop: () => listener.stop() };
}

describe('notifyAfterCommit', () => {
  it('when a transaction asks twice for a wake-up, then the listener hears nothing before COMMIT, and one wake-up after it, with the row visible', async () => {
    const wake = await listening('wake_after_commit');
    await withTransaction(pool, async (client) => {
      await client.query('INSERT INTO announced VALUES (1)');
      await notifyAfterCommit(client, 'wake_after_commit');
      await notifyAfterCommit(client, 'wake_after_commit');
      await sleep(300);
      expect(wake.heard).toEqual([]);
    });
    await waitFor(() => wake.heard.length === 1);
    const seenRows = (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM announced WHERE id = 1')).rows[0]!.n;
    await sleep(200);
    expect(wake.heard).toHaveLength(1);
    expect(seenRows).toBe(1);
    await wake.stop();
  });

  it('when the transaction rolls back, then no wake-up is sent, and the next transaction on the same connection sends only its own', async () => {
    const wake = await listening('wake_rolled_back');
    const other = await listening('wake_next');
    await expect(
      withTransaction(pool, async (client) => {
        await client.query('INSERT INTO announced VALUES (2)');
        await notifyAfterCommit(client, 'wake_rolled_back');
        throw new Error('changed its mind');
      }),
    ).rejects.toThrow('changed its mind');
    await withTransaction(pool, async (client) => notifyAfterCommit(client, 'wake_next'));
    await waitFor(() => other.heard.length === 1);
    await sleep(200);
    expect(wake.heard).toEqual([]);
    await wake.stop();
    await other.stop();
  });

  it('when called outside a transaction, then the wake-up goes out at once', async () => {
    const wake = await listening('wake_now');
    await notifyAfterCommit(pool, 'wake_now');
    await waitFor(() => wake.heard.length === 1);
    await wake.stop();
  });

  it('when called in a transaction the caller opened itself, then it is an ordinary NOTIFY of that transaction: heard at its commit, and its commit still waits for the disk', async () => {
    const wake = await listening('wake_callers');
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('INSERT INTO announced VALUES (4)');
      await notifyAfterCommit(client, 'wake_callers');
      expect((await client.query<{ synchronous_commit: string }>('SHOW synchronous_commit')).rows[0]!.synchronous_commit).toBe('on');
      await sleep(200);
      expect(wake.heard).toEqual([]);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    await waitFor(() => wake.heard.length === 1);
    await wake.stop();
  });

  it('when the data commits, then its own commit notified nothing: the wake-up is a transaction of its own that committed without waiting for the disk', async () => {
    const statements: string[] = [];
    const traced = await pool.connect();
    const query = traced.query.bind(traced);
    (traced as { query: unknown }).query = (text: unknown, ...rest: unknown[]) => {
      statements.push(typeof text === 'string' ? text : String((text as { text?: string }).text));
      return (query as (...args: unknown[]) => unknown)(text, ...rest);
    };
    // withTransaction releases the client it was given.
    const single = { connect: async () => traced } as unknown as Pool;
    await withTransaction(single, async (client) => {
      await client.query('INSERT INTO announced VALUES (3)');
      await notifyAfterCommit(client, 'wake_order');
    });
    const commit = statements.indexOf('COMMIT');
    const notify = statements.findIndex((text) => text.includes('pg_notify'));
    expect(commit).toBeGreaterThan(0);
    expect(notify, 'the wake-up follows the commit').toBe(commit + 1);
    expect(statements[notify]).toContain("set_config('synchronous_commit', 'off', true)");
  });
});
