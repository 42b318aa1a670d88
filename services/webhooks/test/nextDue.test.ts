// Protects the idle delivery worker's clock: with nothing pending it may sleep its full safety-net poll, and a retry wakes it when due, not before.
import { fileURLToPath } from 'node:url';
import { migrate } from '@esim/postgres';
import { createTestInfra, type TestInfra } from '@esim/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { msUntilNextDue } from '../src/store/attemptStore.js';

let infra: TestInfra;
beforeAll(async () => {
  infra = await createTestInfra('nextdue');
  await migrate({ connectionString: infra.databaseUrl, schema: 'webhooks', dir: fileURLToPath(new URL('../migrations', import.meta.url)) });
});
afterAll(() => infra?.cleanup());

async function pending(id: string, dueInMs: number, leasedForMs?: number): Promise<void> {
  await infra.pool.query(`INSERT INTO webhooks.events (id, partner_id, type, order_id, payload, created_at) VALUES ($1, 'ptn_1', 'webhook.test', NULL, '{}', now())`, [`evt_${id}`]);
  await infra.pool.query(
    `INSERT INTO webhooks.deliveries (id, event_id, partner_id, endpoint_id, status, next_attempt_at, locked_until)
     VALUES ($1, $2, 'ptn_1', 'whe_1', 'pending', now() + $3 * interval '1 millisecond', CASE WHEN $4::int IS NULL THEN NULL ELSE now() + $4 * interval '1 millisecond' END)`,
    [`dlv_${id}`, `evt_${id}`, dueInMs, leasedForMs ?? null],
  );
}

describe('msUntilNextDue', () => {
  it('when nothing is pending, then it is undefined (not 0, which would make the worker poll)', async () => {
    expect(await msUntilNextDue(infra.pool)).toBeUndefined();
  });

  it('when retries are pending, then it is the time to the soonest, a lease counting as not yet due', async () => {
    await pending('later', 60_000);
    await pending('leased', -1_000, 30_000);
    const ms = await msUntilNextDue(infra.pool);
    expect(ms).toBeGreaterThan(20_000);
    expect(ms).toBeLessThanOrEqual(30_000);
    await pending('now', -5_000);
    expect(await msUntilNextDue(infra.pool)).toBe(0);
  });
});
