// Protects the orders table's status CHECK: it must accept exactly the vocabulary's order states plus the internal 'pending'.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '@esim/postgres';
import { createTestInfra, type TestInfra } from '@esim/testing';
import { bundleStatuses, esimNotificationTypes, esimStatuses, orderKinds, orderStatuses } from '@esim/vocabulary';

let infra: TestInfra;

beforeAll(async () => {
  infra = await createTestInfra('orders', { poolSize: 1 });
  await migrate({ connectionString: infra.databaseUrl, schema: 'orders', dir: fileURLToPath(new URL('../migrations', import.meta.url)) });
});
afterAll(() => infra?.cleanup());

describe('orders.orders status', () => {
  it("when the CHECK constraint is read back, then it lists 'pending' and exactly the vocabulary's order states", async () => {
    const rows = await infra.query<{ definition: string }>(
      `SELECT pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conname = 'orders_status_check' AND conrelid = 'orders.orders'::regclass`,
    );
    const values = [...rows[0]!.definition.matchAll(/'([^']+)'::text/g)].map((match) => match[1]).sort();
    expect(values).toEqual(['pending', ...orderStatuses].sort());
  });
});

describe('the §13 tables', () => {
  it('when their CHECK constraints are read back, then they list exactly the vocabulary\'s kinds and states', async () => {
    const listed = async (name: string) => {
      const rows = await infra.query<{ definition: string }>(
        `SELECT pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conname = $1 AND connamespace = 'orders'::regnamespace`,
        [name],
      );
      return [...rows[0]!.definition.matchAll(/'([^']+)'::text/g)].map((match) => match[1]).sort();
    };
    expect(await listed('orders_kind_check')).toEqual([...orderKinds].sort());
    expect(await listed('esims_status_check')).toEqual([...esimStatuses].sort());
    expect(await listed('bundles_status_check')).toEqual([...bundleStatuses].sort());
    expect(await listed('supplier_notifications_type_check')).toEqual([...esimNotificationTypes].sort());
  });
});
