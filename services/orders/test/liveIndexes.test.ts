// Protects issue #29's "no query walks history": with a history of finished orders, each sweeper's query reads only live rows (the partial index that holds them), never the finished ones.
import { fileURLToPath } from 'node:url';
import { migrate, type Queryable } from '@esim/postgres';
import { createTestInfra, type TestInfra } from '@esim/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staleCancellations } from '../src/store/cancelStore.js';
import { findStalePendingOrder, staleProcessingOrders } from '../src/store/orderStore.js';

let infra: TestInfra;
const history = 20_000;

beforeAll(async () => {
  infra = await createTestInfra('orderslive');
  await migrate({ connectionString: infra.databaseUrl, schema: 'orders', dir: fileURLToPath(new URL('../migrations', import.meta.url)) });
  // Finished orders, as years of traffic leave them, and statistics that know it.
  await infra.query(
    `INSERT INTO orders.orders (id, partner_id, client_request_id, fingerprint, plan_id, plan_name, supplier_sku, price, currency, email, phone_number,
       status, iccid, smdp_address, matching_id, activation_code, qr_code, created_at, updated_at, provisioned_at)
     SELECT 'ord_hist' || i, 'ptn_hist', 'hist-' || i, md5(i::text) || md5(i::text), 'plan_h', 'History', 'SKU', 500, 'EUR', 'h@example.com', '+33600000000',
            'provisioned', (8900000000000000000 + i)::text, 'smdp.example.com', 'M' || i, 'LPA:1$smdp.example.com$M' || i, 'data:', now() - interval '1 day', now() - interval '1 day', now() - interval '1 day'
     FROM generate_series(1, $1::int) AS i`,
    [history],
  );
  await infra.query('ANALYZE orders.orders');
});
afterAll(() => infra?.cleanup());

/** Runs `call` against a recorder, then EXPLAIN ANALYZEs the statement it sent: the rows and index entries it really read. */
async function explain(call: (db: Queryable) => Promise<unknown>): Promise<{ plan: string; rowsRead: number }> {
  let sent: { text: string; params: unknown[] } | undefined;
  const recorder = { query: async (text: string, params: unknown[] = []) => ((sent = { text, params }), { rows: [], rowCount: 0 }) } as unknown as Queryable;
  await call(recorder);
  const { rows } = await infra.pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) ${sent!.text}`, sent!.params);
  const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
  const removed = [...plan.matchAll(/Rows Removed by Filter: (\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
  return { plan, rowsRead: removed };
}

describe('sweepers on a history of finished orders', () => {
  it('when the cancel sweeper looks for cancellations under way, then it reads the partial index of them and no finished order', async () => {
    const { plan, rowsRead } = await explain((db) => staleCancellations(db, 60_000, 20));
    expect(plan).toContain('orders_cancel_under_way');
    expect(plan).not.toContain('Seq Scan');
    expect(rowsRead).toBe(0);
  });

  it('when the pending and processing sweepers look for stale orders, then neither scans the finished ones', async () => {
    for (const call of [(db: Queryable) => findStalePendingOrder(db, 60_000, []), (db: Queryable) => staleProcessingOrders(db, 60_000, 50)]) {
      const { plan, rowsRead } = await explain(call);
      expect(plan).not.toContain('Seq Scan');
      expect(rowsRead).toBe(0);
    }
  });
});
