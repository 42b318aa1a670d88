// Protects "one deadline" on the order path (#23, contract §11): the caller's gRPC deadline travels into orders, whose
// calls to the wallet end before it, so the caller hears orders' own answer (UNAVAILABLE, the order left for the
// sweeper) rather than a timeout of its own while orders keeps working behind it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDeadlineExceeded } from '@esim/grpc';
import { createTestEnv, orderRequest, type OrdersClient, type TestEnv } from './support/testEnv.js';

let env: TestEnv;
let client: OrdersClient;
let plan: { id: string; name: string };

beforeAll(async () => {
  env = await createTestEnv();
  ({ client } = await env.start({ ORDERS_SWEEP_INTERVAL_MS: '3600000' }));
  plan = await env.plan('FR');
});
afterAll(() => env?.cleanup());

describe('the request\'s deadline', () => {
  it('when the wallet answers slower than the caller\'s deadline, then orders ends its call first and answers UNAVAILABLE within the deadline', async () => {
    const partnerId = env.partner(10_000);
    env.wallet.reserveDelayMs = 4_000;
    const started = Date.now();
    let failure: unknown;
    try {
      await client.createOrder(orderRequest(partnerId, plan.id), { deadlineMs: 1_500 });
    } catch (error) {
      failure = error;
    } finally {
      env.wallet.reserveDelayMs = 0;
    }
    expect(failure).toMatchObject({ code: 'UNAVAILABLE' });
    // Orders' own answer, not the caller's timer.
    expect(isDeadlineExceeded(failure)).toBe(false);
    expect(Date.now() - started).toBeLessThan(4_000);
  });
});
