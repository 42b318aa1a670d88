// Protects the supplier_calls table against drifting from the code: its state CHECK lists exactly the states the domain declares.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '@esim/postgres';
import { supplierCallStates } from '../src/domain/supplierCall.js';
import { createTestEnv, type TestEnv } from './support/testEnv.js';

let env: TestEnv;

beforeAll(async () => {
  env = await createTestEnv();
  await migrate({ connectionString: env.databaseUrl, schema: 'provisioning', dir: fileURLToPath(new URL('../migrations', import.meta.url)) });
});
afterAll(() => env?.cleanup());

describe('provisioning schema', () => {
  it('when the state CHECK is read back, then it allows exactly supplierCallStates', async () => {
    const { rows } = await env.pool.query<{ definition: string }>(
      `SELECT pg_get_constraintdef(oid) AS definition FROM pg_constraint
       WHERE conrelid = 'provisioning.supplier_calls'::regclass AND contype = 'c' AND pg_get_constraintdef(oid) LIKE '%state%'`,
    );
    expect(rows).toHaveLength(1);
    const allowed = [...rows[0]!.definition.matchAll(/'([^']+)'::text/g)].map((match) => match[1]);
    expect(allowed.sort()).toEqual([...supplierCallStates].sort());
  });
});
