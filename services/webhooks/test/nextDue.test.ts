// Protects the idle delivery worker's clock: with nothing pending it may sleep its full safety-net poll, and a retry wakes it when due, not before;
// and its lane (#26): a worker serving one mode neither waits for nor claims the other mode's deliveries.
import { fileURLToPath } from 'node:url';
import { migrate } from '@esim/postgres';
import { createTestInfra, type TestInfra } from '@esim/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimDueAttempts, msUntilNextDue } from '../src/store/attemptStore.js';

let infra: TestInfra;
beforeAll(async () => {
  infra = await createTestInfra('nextdue');
  await migrate({ connectionString: infra.databaseUrl, schema: 'webhooks', dir: fileURLToPath(new URL('../migrations', import.meta.url)) });
});
afterAll(() => infra?.cleanup());

async function pending(id: string, dueInMs: number, leasedForMs?: number, partnerId = 'ptn_1'): Promise<void> {
  await infra.pool.query(`INSERT INTO webhooks.events (id, partner_id, type, order_id, payload, created_at) VALUES ($1, $2, 'webhook.test', NULL, '{}', now())`, [`evt_${id}`, partnerId]);
  await infra.pool.query(
    `INSERT INTO webhooks.deliveries (id, event_id, partner_id, endpoint_id, status, next_attempt_at, locked_until)
     VALUES ($1, $2, $5, 'whe_1', 'pending', now() + $3 * interval '1 millisecond', CASE WHEN $4::int IS NULL THEN NULL ELSE now() + $4 * interval '1 millisecond' END)`,
    [`dlv_${id}`, `evt_${id}`, dueInMs, leasedForMs ?? null, partnerId],
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

describe('lanes', () => {
  it('when only a test account has a delivery due, then a live worker neither wakes for it nor claims it, and a test worker claims it', async () => {
    await infra.pool.query('DELETE FROM webhooks.deliveries');
    await pending('test_due', -1_000, undefined, 'ptn_2_test');
    expect(await msUntilNextDue(infra.pool, ['live'])).toBeUndefined();
    expect(await msUntilNextDue(infra.pool, ['test'])).toBe(0);
    const claim = (lanes: Array<'live' | 'test'>) => claimDueAttempts(infra.pool, { limit: 10, perPartner: 10, leaseMs: 60_000, lanes });
    expect(await claim(['live'])).toEqual([]);
    expect((await claim(['test'])).map((c) => c.deliveryId)).toEqual(['dlv_test_due']);
    await pending('live_due', -1_000);
    expect(await claim(['test'])).toEqual([]);
    expect((await claim(['live', 'test'])).map((c) => c.deliveryId)).toEqual(['dlv_live_due']);
  });
});
