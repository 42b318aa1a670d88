// Protects the Postgres helpers every store uses: a transaction commits all or nothing and always returns its client, money columns read as numbers, and error codes are exposed.
import { createPool, pgErrorCode, withTransaction, type Pool } from '@esim/postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './support/database.js';

let database: TestDatabase;
let pool: Pool;

beforeAll(async () => {
  database = await createTestDatabase('txn');
  // One connection: a client that is not given back makes the next call wait forever.
  pool = createPool(database.url, { applicationName: 'postgres-test', max: 1 });
  await pool.query('CREATE TABLE ledger (id text PRIMARY KEY, amount bigint NOT NULL)');
});
afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

const ids = async () => (await pool.query<{ id: string }>('SELECT id FROM ledger ORDER BY id')).rows.map((r) => r.id);

describe('withTransaction', () => {
  it('when the work resolves, then every write commits and its value is returned', async () => {
    const result = await withTransaction(pool, async (db) => {
      await db.query("INSERT INTO ledger VALUES ('a1', 100), ('a2', 200)");
      return 'done';
    });
    expect(result).toBe('done');
    expect(await ids()).toEqual(['a1', 'a2']);
  });

  it('when the work throws after writing, then nothing of it is kept, the error is rethrown, and the connection is free again', async () => {
    const failure = new Error('reservation refused');
    await expect(
      withTransaction(pool, async (db) => {
        await db.query("INSERT INTO ledger VALUES ('b1', 1)");
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await ids()).not.toContain('b1');
    expect(pool.totalCount - pool.idleCount).toBe(0);
  });

  it('when a statement fails inside the work, then the transaction rolls back and the code is readable', async () => {
    const error = await withTransaction(pool, async (db) => {
      await db.query("INSERT INTO ledger VALUES ('c1', 1)");
      await db.query("INSERT INTO ledger VALUES ('a1', 1)");
    }).catch((e: unknown) => e);
    expect(pgErrorCode(error)).toBe('23505');
    expect(await ids()).not.toContain('c1');
  });
});

describe('values', () => {
  it('when a bigint column is read, then it is a number, not a string', async () => {
    await pool.query("INSERT INTO ledger VALUES ('d1', 9007199254740991)");
    const { rows } = await pool.query<{ amount: unknown }>("SELECT amount FROM ledger WHERE id = 'd1'");
    expect(rows[0]!.amount).toBe(9_007_199_254_740_991);
  });

  it('when the error is not from Postgres, then it has no code', () => {
    expect(pgErrorCode(new Error('plain'))).toBeUndefined();
    expect(pgErrorCode('text')).toBeUndefined();
  });
});
