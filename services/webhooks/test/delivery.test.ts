// Protects what a partner's receiver relies on: every §9 event arrives once with the contract's headers and body, verifiable with node:crypto and with the Standard Webhooks library, in order per order, and signed with the secret current at the attempt.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@esim/ids';
import { newWebhookSecret } from './support/fakePartners.js';
import { everyEventType, paid, provisioned } from './support/fixtures.js';
import type { ReceivedRequest } from './support/receiver.js';
import { createTestEnv, eventually, type TestEnv, type TestWebhooks } from './support/testEnv.js';

let env: TestEnv;
let service: TestWebhooks;

beforeAll(async () => {
  env = await createTestEnv();
  service = await env.start({ WEBHOOK_RETRY_SCHEDULE: '100ms,200ms,300ms' });
});
afterAll(() => env?.cleanup());

function header(request: ReceivedRequest, name: string): string {
  const value = request.headers[name.toLowerCase()];
  if (typeof value !== 'string') throw new Error(`missing header ${name}`);
  return value;
}

function serviceSignatureValid(request: ReceivedRequest, secret: string): boolean {
  const expected = createHmac('sha256', secret).update(request.body).digest();
  const received = Buffer.from(header(request, 'X-SERVICE-Signature'), 'hex');
  return received.length === expected.length && timingSafeEqual(received, expected);
}

const standardHeaders = (request: ReceivedRequest) => ({
  'webhook-id': header(request, 'webhook-id'),
  'webhook-timestamp': header(request, 'webhook-timestamp'),
  'webhook-signature': header(request, 'webhook-signature'),
});

describe('delivering partner events', () => {
  it('when one event of each §9 type is published, then each arrives once with the contract headers, its body and both signatures valid', async () => {
    const partner = env.addPartner();
    const notifications = everyEventType(partner.id);
    const ids: string[] = [];
    for (const notification of notifications) ids.push(await env.publish(notification));

    expect(await eventually(() => env.receiver.on(partner.path).length >= notifications.length, 10_000)).toBe(true);
    const received = env.receiver.on(partner.path);
    expect(received.map((request) => header(request, 'X-SERVICE-Event-Id')).sort()).toEqual([...ids].sort());

    for (const [index, notification] of notifications.entries()) {
      const request = received.find((r) => header(r, 'X-SERVICE-Event-Id') === ids[index])!;
      const body = JSON.parse(request.body) as Record<string, unknown>;
      expect(Object.keys(body)).toEqual(['id', 'type', 'createdAt', 'livemode', 'data']);
      expect(body).toEqual({ id: ids[index], type: notification.type, createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/), livemode: true, data: notification.payload });
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.headers['user-agent']).toBe('Test-Platform-Webhooks/1.0');
      expect(header(request, 'X-SERVICE-Event-Type')).toBe(notification.type);
      expect(header(request, 'X-SERVICE-Delivery-Attempt')).toBe('1');
      expect(header(request, 'webhook-id')).toBe(ids[index]);
      expect(Math.abs(Number(header(request, 'webhook-timestamp')) - Date.now() / 1_000)).toBeLessThan(60);
      expect(header(request, 'X-SERVICE-Signature')).toMatch(/^[0-9a-f]{64}$/);
      expect(serviceSignatureValid(request, partner.secret)).toBe(true);
      expect(new Webhook(partner.secret).verify(request.body, standardHeaders(request))).toEqual(body);
    }
    for (const id of ids) {
      expect(await env.deliveryOf(id)).toMatchObject({ status: 'succeeded', attempts: 1, last_status_code: 200, last_error: null, next_attempt_at: null });
    }
  });

  it('when a body is tampered with or checked against another secret, then both verifications reject it', async () => {
    const partner = env.addPartner();
    await env.publish(paid(partner.id));
    expect(await eventually(() => env.receiver.on(partner.path).length === 1, 10_000)).toBe(true);
    const [request] = env.receiver.on(partner.path);
    const tampered = { ...request!, body: request!.body.replace('"amount":100', '"amount":1') };
    expect(serviceSignatureValid(tampered, partner.secret)).toBe(false);
    expect(() => new Webhook(partner.secret).verify(tampered.body, standardHeaders(tampered))).toThrow();
    const stranger = newWebhookSecret();
    expect(serviceSignatureValid(request!, stranger)).toBe(false);
    expect(() => new Webhook(stranger).verify(request!.body, standardHeaders(request!))).toThrow();
  });

  it('when an order\'s payment.paid is still being retried, then its provision.provisioned waits, while another order goes out', async () => {
    const partner = env.addPartner();
    const other = env.addPartner();
    const orderId = newId('ord');
    // The first two tries of payment.paid fail; provision.provisioned must not overtake it.
    env.receiver.behave(partner.path, (request, n) => (request.headers['x-service-event-type'] === 'payment.paid' && n <= 2 ? { status: 503 } : { status: 200 }));
    const paidId = await env.publish(paid(partner.id, orderId));
    const provisionedId = await env.publish(provisioned(partner.id, orderId));
    const otherId = await env.publish(paid(other.id));

    expect(await eventually(async () => (await env.deliveryOf(provisionedId))?.status === 'succeeded', 15_000)).toBe(true);
    const sequence = env.receiver.on(partner.path).map((r) => `${header(r, 'X-SERVICE-Event-Type')}#${header(r, 'X-SERVICE-Delivery-Attempt')}`);
    expect(sequence).toEqual(['payment.paid#1', 'payment.paid#2', 'payment.paid#3', 'provision.provisioned#1']);
    expect(await env.deliveryOf(paidId)).toMatchObject({ status: 'succeeded', attempts: 3 });
    // The other partner's order was not held up by this one's retries.
    const otherRequest = env.receiver.on(other.path).find((r) => header(r, 'X-SERVICE-Event-Id') === otherId)!;
    expect(otherRequest.receivedAt).toBeLessThan(env.receiver.on(partner.path)[2]!.receivedAt);
  });

  it('when the replica that produced an order\'s later event has a clock a minute behind, then the deliveries still go out in the order they were recorded (#23)', async () => {
    const partner = env.addPartner();
    const orderId = newId('ord');
    env.receiver.behave(partner.path, (request, n) => (request.headers['x-service-event-type'] === 'payment.paid' && n <= 2 ? { status: 503 } : { status: 200 }));
    const paidId = await env.publish(paid(partner.id, orderId));
    expect(await eventually(async () => (await env.deliveryOf(paidId)) !== undefined, 10_000)).toBe(true);
    // provision.provisioned from a replica whose clock is 60 s behind: its occurredAt is before payment.paid's.
    const skewed = { id: newId('evt'), type: 'partner.notification', occurredAt: new Date(Date.now() - 60_000).toISOString(), data: provisioned(partner.id, orderId) };
    await env.query(`INSERT INTO webhooks.outbox (id, subject, payload, headers) VALUES ($1, 'partner.notification', $2, '{}')`, [skewed.id, JSON.stringify(skewed)]);
    await env.query(`SELECT pg_notify('webhooks_outbox', '')`);

    expect(await eventually(async () => (await env.deliveryOf(skewed.id))?.status === 'succeeded', 15_000)).toBe(true);
    const sequence = env.receiver.on(partner.path).map((r) => `${header(r, 'X-SERVICE-Event-Type')}#${header(r, 'X-SERVICE-Delivery-Attempt')}`);
    expect(sequence).toEqual(['payment.paid#1', 'payment.paid#2', 'payment.paid#3', 'provision.provisioned#1']);
  });

  it('when the partner has no webhook URL, then the delivery is no_endpoint, and an operator retry after the URL is set delivers it', async () => {
    const partner = env.addPartner({ url: null });
    const eventId = await env.publish(paid(partner.id));
    expect(await eventually(async () => (await env.deliveryOf(eventId))?.status === 'no_endpoint', 10_000)).toBe(true);
    expect(await env.deliveryOf(eventId)).toMatchObject({ attempts: 0, last_error: 'partner has no webhook URL', next_attempt_at: null });
    expect(env.receiver.on(partner.path)).toHaveLength(0);

    await env.changeEndpoint(partner.id, { url: env.receiver.url(partner.path), secret: partner.secret });
    const delivery = await env.deliveryOf(eventId);
    const retried = await service.client.retryDelivery({ id: delivery!.id, audit: { operator: 'ops', requestId: 'req_1' } });
    expect(retried).toMatchObject({ id: delivery!.id, status: 'pending', attempts: 0 });
    expect(await eventually(async () => (await env.deliveryOf(eventId))?.status === 'succeeded', 10_000)).toBe(true);
    const [request] = env.receiver.on(partner.path);
    expect(header(request!, 'X-SERVICE-Delivery-Attempt')).toBe('1');
    expect(serviceSignatureValid(request!, partner.secret)).toBe(true);
  });

  it('when one partner gets several deliveries, then its endpoint is looked up once, not per attempt', async () => {
    const partner = env.addPartner();
    for (let i = 0; i < 3; i++) {
      await env.publish(paid(partner.id));
      expect(await eventually(() => env.receiver.on(partner.path).length === i + 1, 10_000)).toBe(true);
    }
    expect(env.partners.lookups(partner.id)).toBe(1);
    for (const request of env.receiver.on(partner.path)) expect(serviceSignatureValid(request, partner.secret)).toBe(true);
  });

  it('when the secret is rotated, then the next delivery is signed with the new secret and no longer verifies with the old one', async () => {
    const partner = env.addPartner();
    await env.publish(paid(partner.id));
    expect(await eventually(() => env.receiver.on(partner.path).length === 1, 10_000)).toBe(true);

    const rotated = newWebhookSecret();
    await env.changeEndpoint(partner.id, { url: env.receiver.url(partner.path), secret: rotated });
    await env.publish(paid(partner.id));
    expect(await eventually(() => env.receiver.on(partner.path).length === 2, 10_000)).toBe(true);
    // The first delivery's lookup was kept; the change event dropped it, so the second asked again.
    expect(env.partners.lookups(partner.id)).toBe(2);
    const [before, after] = env.receiver.on(partner.path);
    expect(serviceSignatureValid(before!, partner.secret)).toBe(true);
    expect(serviceSignatureValid(after!, rotated)).toBe(true);
    expect(serviceSignatureValid(after!, partner.secret)).toBe(false);
    expect(new Webhook(rotated).verify(after!.body, standardHeaders(after!))).toBeTruthy();
    expect(() => new Webhook(partner.secret).verify(after!.body, standardHeaders(after!))).toThrow();
  });
});
