// Protects the provisioning schema's retention (§11, docs/retention.md): ES2+ notifications go after 30 days, finished supplier calls after 90; a pending call and recent rows stay.
import { fileURLToPath } from 'node:url';
import { migrate } from '@esim/postgres';
import { runRetention } from '@esim/service';
import { createTestInfra, type TestInfra } from '@esim/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { provisioningRetention } from '../src/store/retentionStore.js';

let infra: TestInfra;

beforeAll(async () => {
  infra = await createTestInfra('provisioningretention');
  await migrate({ connectionString: infra.databaseUrl, schema: 'provisioning', dir: fileURLToPath(new URL('../migrations', import.meta.url)) });
});
afterAll(() => infra?.cleanup());

describe('provisioning retention', () => {
  it('when ES2+ notifications are older than 30 days, then the job deletes them in batches; recent ones stay', async () => {
    const notification = (id: string, ageDays: number) =>
      infra.query(
        `INSERT INTO provisioning.es2_notifications (id, requester_id, call_id, iccid, profile_type, notification_point, status, occurred_at, received_at)
         VALUES ($1, 'req', $1, '8900000000000000001', 'p', 1, 'Executed-Success', now() - $2 * interval '1 day', now() - $2 * interval '1 day')`,
        [id, ageDays],
      );
    for (let i = 0; i < 3; i++) await notification(`old-${i}`, 31 + i);
    await notification('recent', 29);

    expect(await runRetention(infra.pool, provisioningRetention, { batch: 2 })).toMatchObject({ 'provisioning.es2_notifications': 3 });
    expect((await infra.query<{ id: string }>('SELECT id FROM provisioning.es2_notifications')).map((row) => row.id)).toEqual(['recent']);
  });

  it('when supplier calls finished more than 90 days ago, then the job deletes them; a pending one, however old, and recent ones stay', async () => {
    const call = (orderId: string, state: string, ageDays: number) =>
      infra.query(
        `INSERT INTO provisioning.supplier_calls (order_id, sku, attempts, state, created_at, updated_at)
         VALUES ($1, 'SKU', 1, $2, now() - $3 * interval '1 day', now() - $3 * interval '1 day')`,
        [orderId, state, ageDays],
      );
    await call('ord_old_succeeded', 'succeeded', 91);
    await call('ord_old_failed', 'failed', 120);
    await call('ord_old_pending', 'pending', 200);
    await call('ord_recent', 'succeeded', 89);

    expect(await runRetention(infra.pool, provisioningRetention, { batch: 5 })).toMatchObject({ 'provisioning.supplier_calls': 2 });
    expect((await infra.query<{ order_id: string }>('SELECT order_id FROM provisioning.supplier_calls ORDER BY order_id')).map((row) => row.order_id)).toEqual([
      'ord_old_pending',
      'ord_recent',
    ]);
  });
});
