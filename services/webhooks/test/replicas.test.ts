// Protects delivery under several replicas and slow partners: two instances on one database send each numbered attempt exactly once, and a partner that hangs holds only its own slots (at most WEBHOOK_PARTNER_CONCURRENCY, over both replicas), never another partner's deliveries.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@esim/ids';
import { paid } from './support/fixtures.js';
import { createTestEnv, eventually, type TestEnv } from './support/testEnv.js';

let env: TestEnv;

beforeAll(async () => {
  env = await createTestEnv();
  const config = { WEBHOOK_RETRY_SCHEDULE: '50ms,100ms,200ms', WEBHOOK_TIMEOUT_MS: '8000', WEBHOOK_PARTNER_CONCURRENCY: '4' };
  await Promise.all([env.start(config), env.start(config)]);
});
afterAll(() => env?.cleanup());

describe('two replicas on one database', () => {
  it('when 120 events for 6 partners are delivered and a third fail their first attempt, then every (event, attempt) reaches the receiver exactly once', async () => {
    const partners = Array.from({ length: 6 }, () => env.addPartner());
    for (const partner of partners) {
      env.receiver.behave(partner.path, (request) => {
        const failFirst = Number.parseInt(String(request.headers['webhook-id']).slice(-2), 32) % 3 === 0;
        return failFirst && request.headers['x-service-delivery-attempt'] === '1' ? { status: 500 } : { status: 200 };
      });
    }
    const ids: string[] = [];
    for (let i = 0; i < 120; i++) ids.push(await env.publish(paid(partners[i % 6]!.id, newId('ord'))));

    const allSucceeded = async () => {
      const rows = await env.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhooks.deliveries WHERE event_id = ANY($1) AND status = 'succeeded'`, [ids]);
      return rows[0]!.n === ids.length;
    };
    expect(await eventually(allSucceeded, 30_000)).toBe(true);

    const seen = new Map<string, number>();
    for (const request of env.receiver.requests) {
      const key = `${String(request.headers['webhook-id'])}#${String(request.headers['x-service-delivery-attempt'])}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
    const duplicates = [...seen].filter(([, count]) => count > 1);
    expect(duplicates).toEqual([]);
    const rows = await env.query<{ event_id: string; attempts: number }>('SELECT event_id, attempts FROM webhooks.deliveries WHERE event_id = ANY($1)', [ids]);
    for (const row of rows) {
      expect(seen.get(`${row.event_id}#${row.attempts}`)).toBe(1);
      expect(seen.has(`${row.event_id}#${row.attempts + 1}`)).toBe(false);
    }
  });

  it('when one partner hangs until the timeout, then another partner\'s deliveries all go out meanwhile, and the hanging one holds at most its 4 slots', async () => {
    const slow = env.addPartner();
    const fast = env.addPartner();
    env.receiver.behave(slow.path, () => 'hang');
    const slowIds: string[] = [];
    for (let i = 0; i < 10; i++) slowIds.push(await env.publish(paid(slow.id)));
    expect(await eventually(() => env.receiver.on(slow.path).length === 4, 10_000)).toBe(true);

    const fastIds: string[] = [];
    for (let i = 0; i < 8; i++) fastIds.push(await env.publish(paid(fast.id)));
    const fastDone = async () => {
      const rows = await env.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhooks.deliveries WHERE event_id = ANY($1) AND status = 'succeeded'`, [fastIds]);
      return rows[0]!.n === fastIds.length;
    };
    expect(await eventually(fastDone, 10_000)).toBe(true);

    // Still inside the slow partner's first timeout: none of its attempts has an outcome, and no fifth request was started.
    const slowOutcomes = await env.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhooks.deliveries WHERE event_id = ANY($1) AND last_error IS NOT NULL`, [slowIds]);
    expect(slowOutcomes[0]!.n).toBe(0);
    expect(env.receiver.on(slow.path)).toHaveLength(4);
  });
});
