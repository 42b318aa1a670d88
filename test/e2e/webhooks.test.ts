// Protects the partner's webhook experience end to end, through the gateway and the real services: signed deliveries of wallet and order events (in order, in the order's trace), the portal's delivery log and test event, secret rotation, and the operator's log and redelivery.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  admin,
  api,
  call,
  control,
  expectInvalidField,
  expectProblem,
  onboardPartner,
  platform,
  portalToken,
  until,
  waitForMail,
  webhookSecretPattern,
  withKey,
  withToken,
  type Onboarded,
} from './support/client.js';
import { finalOrder, orderBody } from './support/money.js';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** The partner's receiver, in the test process on 127.0.0.1; answers 204 unless a path is told to fail. */
const received: Received[] = [];
const failing = new Set<string>();
let server: Server;
let receiverUrl = '';

function verifies(request: Received, secret: string): boolean {
  const expected = createHmac('sha256', secret).update(request.body).digest();
  const signature = Buffer.from(String(request.headers['x-service-signature']), 'hex');
  const hmacOk = signature.length === expected.length && timingSafeEqual(signature, expected);
  let standardOk = true;
  try {
    new Webhook(secret).verify(request.body, request.headers as Record<string, string>);
  } catch {
    standardOk = false;
  }
  return hmacOk && standardOk;
}

const arrived = (path: string, type: string, count = 1) =>
  until(() => {
    const found = received.filter((r) => r.path === path && r.headers['x-service-event-type'] === type);
    return Promise.resolve(found.length >= count ? found : undefined);
  }, `${count} × ${type} at ${path}`, 20_000);

/** An approved partner with a portal token and its webhook URL on the receiver. */
async function partnerWithEndpoint(): Promise<Onboarded & { token: string; path: string }> {
  const partner = await onboardPartner();
  const token = await portalToken(partner.email, partner.password);
  const path = `/hooks/${partner.id}`;
  const patched = await api('/partner/me', { method: 'PATCH', body: { webhookUrl: `${receiverUrl}${path}` }, ...withToken(token) });
  expect(patched.status).toBe(200);
  return { ...partner, token, path };
}

async function sendTest(token: string): Promise<string> {
  const answer = await api('/partner/me/webhook/test', { method: 'POST', ...withToken(token) });
  expect(answer.status, answer.text).toBe(202);
  expect(answer.body).toEqual({ eventId: expect.stringMatching(/^evt_[0-9a-z]{26}$/) });
  return answer.body.eventId as string;
}

async function adminDeliveryOf(partnerId: string, eventId: string) {
  const page = await admin(`/webhook-deliveries?partnerId=${partnerId}&limit=100`);
  return (page.body.data as Array<Record<string, unknown>>).find((d) => d.eventId === eventId);
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(failing.has(path) ? 500 : 204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('webhooks a partner receives', () => {
  it('when an operator tops up the wallet, then a wallet.credited webhook arrives, verifiable with the secret from the approval e-mail', async () => {
    const partner = await partnerWithEndpoint();
    const topup = await admin(`/partners/${partner.id}/wallet/topups`, { body: { amount: 5_000, reference: `WIRE-${randomBytes(4).toString('hex')}` } });
    expect(topup.status).toBe(201);
    const [request] = await arrived(partner.path, 'wallet.credited');
    expect(verifies(request!, partner.webhookSecret)).toBe(true);
    const body = JSON.parse(request!.body);
    expect(body).toMatchObject({ type: 'wallet.credited', data: { walletBalance: 5_000, ledgerEntry: { type: 'topup', amount: 5_000 } } });
    expect(request!.headers['x-service-event-id']).toBe(body.id);
    expect(request!.headers['webhook-id']).toBe(body.id);
    expect(request!.headers['x-service-delivery-attempt']).toBe('1');
    expect(request!.headers['user-agent']).toMatch(/-Webhooks\/1\.0$/);
  });

  it('when the partner orders with a traceparent, then payment.paid precedes provision.provisioned, the order matches the API without its QR code, and each attempt is a span of that trace', async () => {
    const partner = await partnerWithEndpoint();
    await admin(`/partners/${partner.id}/wallet/topups`, { body: { amount: 100_000, reference: `WIRE-${randomBytes(4).toString('hex')}` } });
    const plan = (await api('/partner/catalog?limit=1', withKey(partner.apiKey))).body.data[0];
    const traceId = randomBytes(16).toString('hex');
    const created = await api('/partner/orders', {
      body: orderBody(plan.id),
      headers: { authorization: `Bearer ${partner.apiKey}`, traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    });
    expect(created.status).toBe(201);
    const order = await finalOrder(partner.apiKey, created.body.id);
    expect(order.status).toBe('provisioned');

    const [provisioned] = await arrived(partner.path, 'provision.provisioned');
    const sequence = received.filter((r) => r.path === partner.path && JSON.parse(r.body).type !== 'wallet.credited').map((r) => JSON.parse(r.body).type);
    expect(sequence).toEqual(['payment.paid', 'provision.provisioned']);
    expect(verifies(provisioned!, partner.webhookSecret)).toBe(true);
    const { qrCode, ...esim } = order.esim;
    expect(qrCode).toMatch(/^data:image\/png;base64,/);
    // Without the QR code of `esim`, nor of each of `esims` (§9).
    const esims = order.esims.map(({ qrCode: _png, ...rest }: { qrCode: string }) => rest);
    expect(JSON.parse(provisioned!.body).data.order).toEqual({ ...order, esim, esims });
    const [paid] = await arrived(partner.path, 'payment.paid');
    expect(JSON.parse(paid!.body).data).toMatchObject({ orderId: order.id, clientRequestId: order.clientRequestId, amount: order.price });

    const spans = await until(async () => {
      const found = (await control<Array<{ service: string; name: string; attributes: Record<string, unknown> }>>(`/spans?traceId=${traceId}`)).body.filter((s) => s.service === 'webhooks');
      const names = new Set(found.map((s) => s.name));
      return names.has('webhook deliver payment.paid') && names.has('webhook deliver provision.provisioned') ? found : undefined;
    }, 'webhook attempt spans in the order trace', 20_000);
    expect(JSON.stringify(spans)).not.toContain(partner.webhookSecret.slice(6));
  });

  it('when the webhook secret is rotated, then the next webhook verifies with the new secret, and with the old one only through the overlap headers', async () => {
    const partner = await partnerWithEndpoint();
    expect((await admin(`/partners/${partner.id}/webhook-secret/rotate`, { method: 'POST' })).status).toBe(200);
    const [mail] = await waitForMail(partner.email, 'Your webhook signing secret was rotated');
    const rotated = webhookSecretPattern.exec(mail!.text)![1]!;
    const eventId = await sendTest(partner.token);
    const [request] = await arrived(partner.path, 'webhook.test');
    expect(request!.headers['webhook-id']).toBe(eventId);
    expect(verifies(request!, rotated)).toBe(true);
    expect(verifies(request!, partner.webhookSecret)).toBe(false);
    // The default 24 h overlap (§9): the old secret still signs beside the new one.
    expect(String(request!.headers['webhook-signature'])).toMatch(/^v1,\S+ v1,\S+$/);
    expect(() => new Webhook(partner.webhookSecret).verify(request!.body, request!.headers as Record<string, string>)).not.toThrow();
    expect(request!.headers['x-service-signature-previous']).toBe(createHmac('sha256', partner.webhookSecret).update(request!.body).digest('hex'));
  });

  it('when the operator rotates with overlapHours 0, then the old secret stops at once; outside 0–72 is a 400 naming overlapHours', async () => {
    const partner = await partnerWithEndpoint();
    expectInvalidField(await admin(`/partners/${partner.id}/webhook-secret/rotate`, { body: { overlapHours: 73 } }), 'overlapHours');
    expect((await admin(`/partners/${partner.id}/webhook-secret/rotate`, { body: { overlapHours: 0 } })).status).toBe(200);
    const [mail] = await waitForMail(partner.email, 'Your webhook signing secret was rotated');
    const rotated = webhookSecretPattern.exec(mail!.text)![1]!;
    await sendTest(partner.token);
    const [request] = await arrived(partner.path, 'webhook.test');
    expect(verifies(request!, rotated)).toBe(true);
    expect(String(request!.headers['webhook-signature'])).toMatch(/^v1,\S+$/);
    expect(request!.headers['x-service-signature-previous']).toBeUndefined();
  });
});

describe('the portal: delivery log and test event', () => {
  it('when the partner sends a test event, then it arrives signed and is listed as succeeded in its own log, without a partner id', async () => {
    const partner = await partnerWithEndpoint();
    const eventId = await sendTest(partner.token);
    const [request] = await arrived(partner.path, 'webhook.test');
    expect(JSON.parse(request!.body)).toEqual({ id: eventId, type: 'webhook.test', createdAt: expect.any(String), livemode: true, data: { message: expect.stringMatching(/^This is a test event from .+\.$/) } });
    expect(verifies(request!, partner.webhookSecret)).toBe(true);

    const log = await until(async () => {
      const answer = await api('/partner/me/webhook-deliveries?status=succeeded', withToken(partner.token));
      return answer.body.data?.some((d: { eventId: string }) => d.eventId === eventId) ? answer : undefined;
    }, 'the test delivery in the portal log');
    expect(log.status).toBe(200);
    expect(log.body.pagination).toMatchObject({ page: 1, limit: 20 });
    const delivery = log.body.data.find((d: { eventId: string }) => d.eventId === eventId);
    expect(Object.keys(delivery).sort()).toEqual(['attempts', 'createdAt', 'deliveredAt', 'endpointId', 'eventId', 'eventType', 'id', 'lastError', 'lastStatusCode', 'livemode', 'nextAttemptAt', 'status', 'updatedAt']);
    expect(delivery.endpointId).toMatch(/^whe_[0-9a-z]{26}$/);
    expect(delivery).toMatchObject({ id: expect.stringMatching(/^dlv_/), eventType: 'webhook.test', status: 'succeeded', attempts: 1, lastStatusCode: 204, lastError: null, nextAttemptAt: null, livemode: true });
    const failed = await api('/partner/me/webhook-deliveries?status=failed', withToken(partner.token));
    expect(failed.body.data).toEqual([]);
  });

  it('when the partner has no webhook URL, then its events are kept as no_endpoint, and an operator redelivers them once a URL is set', async () => {
    const partner = await onboardPartner();
    const token = await portalToken(partner.email, partner.password);
    const eventId = await sendTest(token);
    const kept = await until(async () => {
      const answer = await api('/partner/me/webhook-deliveries?status=no_endpoint', withToken(token));
      return answer.body.data?.find((d: { eventId: string }) => d.eventId === eventId);
    }, 'a no_endpoint delivery');
    expect(kept).toMatchObject({ attempts: 0, lastError: 'partner has no webhook URL', nextAttemptAt: null });

    const path = `/hooks/${partner.id}`;
    await api('/partner/me', { method: 'PATCH', body: { webhookUrl: `${receiverUrl}${path}` }, ...withToken(token) });
    expect((await admin(`/webhook-deliveries/${kept.id}/retry`, { method: 'POST' })).status).toBe(200);
    const [request] = await arrived(path, 'webhook.test');
    expect(request!.headers['webhook-id']).toBe(eventId);
  });

  it('when the log is asked for badly or without the portal token, then it answers 400 or 401', async () => {
    const partner = await partnerWithEndpoint();
    expectInvalidField(await api('/partner/me/webhook-deliveries?limit=101', withToken(partner.token)), 'limit');
    expectInvalidField(await api('/partner/me/webhook-deliveries?status=delivered', withToken(partner.token)), 'status');
    expectProblem(await api('/partner/me/webhook-deliveries'), 401, 'UNAUTHENTICATED');
    expectProblem(await api('/partner/me/webhook-deliveries', withKey(partner.apiKey)), 401, 'INVALID_TOKEN');
    expectProblem(await api('/partner/me/webhook/test', { method: 'POST' }), 401, 'UNAUTHENTICATED');
    expectProblem(await api('/partner/me/webhook/test', { method: 'POST', ...withKey(partner.apiKey) }), 401, 'INVALID_TOKEN');
  });
});

describe('operators: the delivery log and redelivery', () => {
  it('when an endpoint keeps failing, then the delivery ends failed after the schedule, and an audited retry delivers it once the endpoint recovers', async () => {
    const partner = await partnerWithEndpoint();
    failing.add(partner.path);
    const eventId = await sendTest(partner.token);
    const dead = await until(async () => {
      const delivery = await adminDeliveryOf(partner.id, eventId);
      return delivery?.status === 'failed' ? delivery : undefined;
    }, 'the delivery to fail', 30_000);
    // The e2e schedule has three delays: four attempts in all.
    expect(dead).toMatchObject({ partnerId: partner.id, eventType: 'webhook.test', attempts: 4, lastStatusCode: 500, lastError: 'endpoint answered HTTP 500', nextAttemptAt: null, deliveredAt: null });

    failing.delete(partner.path);
    const retried = await admin(`/webhook-deliveries/${String(dead.id)}/retry`, { method: 'POST', headers: { 'x-operator': 'alice' } });
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({ id: dead.id, status: 'pending', attempts: 4 });
    const delivered = await until(async () => {
      const delivery = await adminDeliveryOf(partner.id, eventId);
      return delivery?.status === 'succeeded' ? delivery : undefined;
    }, 'the retried delivery to succeed');
    expect(delivered).toMatchObject({ attempts: 5, lastStatusCode: 204, lastError: null });
    const attempts = received.filter((r) => r.path === partner.path).map((r) => r.headers['x-service-delivery-attempt']);
    expect(attempts).toEqual(['1', '2', '3', '4', '5']);

    const entry = await until(async () => {
      const audit = await admin('/audit?limit=100');
      return (audit.body.data as Array<Record<string, unknown>>).find((e) => e.action === 'webhook_delivery.retried' && e.target === dead.id);
    }, 'the retry in the audit log');
    expect(entry).toMatchObject({ operator: 'admin-token' });
  });

  it('when the admin log is filtered or a retry names no delivery, then it answers as §3 says', async () => {
    expectInvalidField(await admin('/webhook-deliveries?status=bogus'), 'status');
    expectInvalidField(await admin('/webhook-deliveries?page=0'), 'page');
    expectProblem(await admin(`/webhook-deliveries/dlv_${'0'.repeat(26)}/retry`, { method: 'POST' }), 404, 'NOT_FOUND');
    expectProblem(await admin('/webhook-deliveries/not-an-id/retry', { method: 'POST' }), 404, 'NOT_FOUND');
    expectProblem(await call(platform.adminUrl, '/admin/v1/webhook-deliveries'), 401, 'UNAUTHENTICATED');
    const pastTheEnd = await admin('/webhook-deliveries?page=100000');
    expect(pastTheEnd.status).toBe(200);
    expect(pastTheEnd.body.data).toEqual([]);
  });

  it('when the OpenAPI documents are read, then both listeners document their webhook routes and answers', async () => {
    const published = (await call(platform.publicUrl, '/openapi.json')).body;
    expect(Object.keys(published.paths['/api/v1/partner/me/webhook/test'].post.responses)).toContain('202');
    expect(published.paths['/api/v1/partner/me/webhook-deliveries'].get.responses['200']).toBeDefined();
    expect(JSON.stringify(published)).not.toContain('/webhook-deliveries/{id}/retry');
    const operators = (await call(platform.adminUrl, '/openapi.json')).body;
    expect(operators.paths['/admin/v1/webhook-deliveries'].get.responses['200']).toBeDefined();
    expect(operators.paths['/admin/v1/webhook-deliveries/{id}/retry'].post.responses['404']).toBeDefined();
  });

  it('when deliveries have happened, then the webhooks service counts them by outcome on /metrics', async () => {
    const metrics = (await call(`http://127.0.0.1:${platform.ports.webhooks!.health}`, '/metrics')).text;
    expect(metrics).toMatch(/^webhook_deliveries_total\{[^}]*outcome="succeeded"[^}]*\} [1-9]/m);
    expect(metrics).toMatch(/^webhook_delivery_attempts_total(\{[^}]*\})? [1-9]/m);
    expect(metrics).toMatch(/^webhook_delivery_lag_ms_count(\{[^}]*\})? [1-9]/m);
  });
});
