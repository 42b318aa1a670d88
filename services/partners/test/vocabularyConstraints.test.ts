// Protects the one-vocabulary rule for the partners schema: each CHECK constraint lists exactly @esim/vocabulary's values.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partnerStatuses, scopes, tiers } from '@esim/vocabulary';
import { createTestEnv, type TestEnv } from './support/testEnv.js';

let env: TestEnv;

beforeAll(async () => {
  env = await createTestEnv();
  await env.migrate();
});

afterAll(() => env?.cleanup());

/** The quoted literals of every CHECK on `table` that mentions `column`, as Postgres itself prints the constraint. */
async function checkedValues(table: string, column: string): Promise<string[]> {
  const rows = await env.query<{ definition: string }>(
    `SELECT pg_get_constraintdef(c.oid) AS definition
     FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace
     JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = ANY (c.conkey)
     WHERE n.nspname = 'partners' AND t.relname = $1 AND a.attname = $2 AND c.contype = 'c'`,
    [table, column],
  );
  expect(rows, `a CHECK constraint on ${table}.${column}`).toHaveLength(1);
  return [...rows[0]!.definition.matchAll(/'([^']*)'::text/g)].map((match) => match[1]!);
}

describe('partners schema CHECK constraints', () => {
  it('when the migrations have run, then partners.status allows exactly the partner statuses', async () => {
    expect((await checkedValues('partners', 'status')).sort()).toEqual([...partnerStatuses].sort());
  });

  it('when the migrations have run, then partners.tier allows exactly the tiers', async () => {
    expect((await checkedValues('partners', 'tier')).sort()).toEqual([...tiers].sort());
  });

  it('when the migrations have run, then api_keys.scopes allows exactly the scopes', async () => {
    expect((await checkedValues('api_keys', 'scopes')).sort()).toEqual([...scopes].sort());
  });

  it('when a status outside the vocabulary is written, then Postgres refuses it', async () => {
    await expect(
      env.query(`INSERT INTO partners.partners (id, name, email, company, password_hash, status) VALUES ('ptn_x', 'n', 'x@example.com', 'c', 'h', 'archived')`),
    ).rejects.toMatchObject({ code: '23514' });
  });

  it('when a key with an unknown scope or no scope is written, then Postgres refuses it', async () => {
    await env.query(`INSERT INTO partners.partners (id, name, email, company, password_hash) VALUES ('ptn_y', 'n', 'y@example.com', 'c', 'h')`);
    for (const bad of [['orders:delete'], []]) {
      await expect(
        env.query(`INSERT INTO partners.api_keys (id, partner_id, prefix, secret_hash, scopes) VALUES ('key_y', 'ptn_y', 'abcdefabcdef', 'h', $1)`, [bad]),
      ).rejects.toMatchObject({ code: '23514' });
    }
  });
});
