// Protects the retry contract (§9): a non-2xx answer or a timeout is retried on WEBHOOK_RETRY_SCHEDULE and then marked failed, numbered attempts carry the same event, and an outage of our own partners service never spends a partner's attempts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paid } from './support/fixtures.js';
import { createTestEnv, eventually, type TestEnv, type TestWebhooks } from './support/testEnv.js';

let env: TestEnv;
let service: TestWebhooks;
const scheduleMs = [100, 200];

beforeAll(async () => {
  env = await createTestEnv();
  service = await env.start({ WEBHOOK_RETRY_SCHEDULE: '100ms,200ms', WEBHOOK_TIMEOUT_MS: '300' });
});
afterAll(() => env?.cleanup());

const settled = (eventId: string) => async () => ['succeeded', 'failed'].includes((await env.deliveryOf(eventId))?.status ?? '');

describe('retries', () => {
  it('when the endpoint answers 500 every time, then it gets one attempt plus one per scheduled delay, spaced by the schedule, and the delivery is failed', async () => {
    const partner = env.addPartner();
    env.receiver.behave(partner.path, () => ({ status: 500 }));
    const eventId = await env.publish(paid(partner.id));
    expect(await eventually(settled(eventId), 10_000)).toBe(true);

    expect(await env.deliveryOf(eventId)).toMatchObject({
      status: 'failed',
      attempts: 3,
      last_status_code: 500,
      last_error: 'endpoint answered HTTP 500',
      next_attempt_at: null,
      delivered_at: null,
    });
    const requests = env.receiver.on(partner.path);
    expect(requests.map((r) => r.headers['x-service-delivery-attempt'])).toEqual(['1', '2', '3']);
    expect(new Set(requests.map((r) => r.headers['webhook-id']))).toEqual(new Set([eventId]));
    expect(new Set(requests.map((r) => r.body)).size).toBe(1);
    // Each retry waits at least its scheduled delay after the previous attempt.
    for (const [index, delay] of scheduleMs.entries()) {
      expect(requests[index + 1]!.receivedAt - requests[index]!.receivedAt).toBeGreaterThanOrEqual(delay - 5);
    }
  });

  it('when the endpoint never answers, then each attempt times out, is retried, and the delivery ends failed with the timeout as its error', async () => {
    const partner = env.addPartner();
    env.receiver.behave(partner.path, () => 'hang');
    const eventId = await env.publish(paid(partner.id));
    expect(await eventually(settled(eventId), 10_000)).toBe(true);
    expect(await env.deliveryOf(eventId)).toMatchObject({ status: 'failed', attempts: 3, last_status_code: null, last_error: 'no response within 300 ms' });
    expect(env.receiver.on(partner.path)).toHaveLength(3);
  });

  it('when the endpoint fails once and then answers 204, then the second attempt succeeds and is recorded as delivered', async () => {
    const partner = env.addPartner();
    env.receiver.behave(partner.path, (_, n) => (n === 1 ? { status: 502 } : { status: 204 }));
    const eventId = await env.publish(paid(partner.id));
    expect(await eventually(settled(eventId), 10_000)).toBe(true);
    const delivery = await env.deliveryOf(eventId);
    expect(delivery).toMatchObject({ status: 'succeeded', attempts: 2, last_status_code: 204, last_error: null, next_attempt_at: null });
    expect(delivery!.delivered_at).toBeInstanceOf(Date);
  });

  it('when an operator retries a failed delivery, then exactly one more attempt is made, numbered after the others', async () => {
    const partner = env.addPartner();
    env.receiver.behave(partner.path, () => ({ status: 500 }));
    const eventId = await env.publish(paid(partner.id));
    expect(await eventually(settled(eventId), 10_000)).toBe(true);
    const { id } = (await env.deliveryOf(eventId))!;

    await service.client.retryDelivery({ id, audit: { operator: 'ops', requestId: 'req_retry' } });
    expect(await eventually(async () => (await env.deliveryOf(eventId))?.attempts === 4 && (await settled(eventId)()), 10_000)).toBe(true);
    expect(await env.deliveryOf(eventId)).toMatchObject({ status: 'failed', attempts: 4 });
    expect(env.receiver.on(partner.path).map((r) => r.headers['x-service-delivery-attempt'])).toEqual(['1', '2', '3', '4']);
  });

  it('when the partners service is down, then the delivery waits without spending an attempt and goes out as attempt 1 once it is back', async () => {
    const partner = env.addPartner();
    env.partners.setDown(true);
    const eventId = await env.publish(paid(partner.id));
    try {
      expect(await eventually(async () => (await env.deliveryOf(eventId))?.last_error?.startsWith('webhook endpoint lookup failed') ?? false, 10_000)).toBe(true);
      expect(await env.deliveryOf(eventId)).toMatchObject({ status: 'pending', attempts: 0 });
    } finally {
      env.partners.setDown(false);
    }
    expect(await eventually(settled(eventId), 15_000)).toBe(true);
    expect(await env.deliveryOf(eventId)).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect(env.receiver.on(partner.path).map((r) => r.headers['x-service-delivery-attempt'])).toEqual(['1']);
  });
});
