// Protects §9 "Several endpoints per partner" through the gateway and the real services: the endpoints API for partners and operators with its errors, one delivery per endpoint naming it, a rotation's overlap verified by the Standard Webhooks library, recover and per-endpoint test, and the low-balance event.
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, api, expectInvalidField, expectProblem, onboardPartner, portalToken, until, withToken, type Onboarded } from './support/client.js';
import { startReceiver, type ReceivedWebhook, type WebhookReceiver } from './support/receiver.js';
import { fundedPartner, orderBody, placeOrderPatiently, planWithSku } from './support/money.js';

let receiver: WebhookReceiver;
let receiverUrl = '';
const received: ReceivedWebhook[] = [];

beforeAll(async () => {
  receiver = await startReceiver(received);
  receiverUrl = receiver.url;
});
afterAll(() => receiver?.close());

const arrived = (path: string, type: string, count = 1) =>
  until(() => {
    const found = received.filter((r) => r.path === path && r.headers['x-service-event-type'] === type);
    return Promise.resolve(found.length >= count ? found : undefined);
  }, `${count} × ${type} at ${path}`, 20_000);

async function portalPartner(): Promise<Onboarded & { token: string; path: string }> {
  const partner = await onboardPartner();
  const token = await portalToken(partner.email, partner.password);
  return { ...partner, token, path: `/hooks/${partner.id}` };
}

const endpointKeys = ['createdAt', 'description', 'disabledReason', 'enabled', 'eventTypes', 'id', 'livemode', 'url'];

describe('the endpoints API (portal)', () => {
  it('when a partner adds an endpoint, then 201 shows it with its secret once, the list shows it beside the primary one without secrets, and a test reaches it alone with endpointId in the log', async () => {
    const partner = await portalPartner();
    expect((await api('/partner/me', { method: 'PATCH', body: { webhookUrl: `${receiverUrl}${partner.path}` }, ...withToken(partner.token) })).status).toBe(200);
    const created = await api('/partner/me/webhook-endpoints', {
      body: { url: `${receiverUrl}${partner.path}/orders`, description: 'orders', eventTypes: ['payment.paid', 'webhook.test'] },
      ...withToken(partner.token),
    });
    expect(created.status, created.text).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual([...endpointKeys, 'secret'].sort());
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^whe_[0-9a-z]{26}$/),
      url: `${receiverUrl}${partner.path}/orders`,
      description: 'orders',
      eventTypes: ['payment.paid', 'webhook.test'],
      enabled: true,
      livemode: true,
      disabledReason: null,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });

    const list = await api('/partner/me/webhook-endpoints', withToken(partner.token));
    expect(list.status).toBe(200);
    expect(list.body.data.map((e: { url: string; eventTypes: unknown }) => [e.url, e.eventTypes])).toEqual([
      [`${receiverUrl}${partner.path}`, null],
      [`${receiverUrl}${partner.path}/orders`, ['payment.paid', 'webhook.test']],
    ]);
    expect(list.text).not.toContain('whsec_');

    const test = await api(`/partner/me/webhook-endpoints/${created.body.id}/test`, { method: 'POST', ...withToken(partner.token) });
    expect(test.status, test.text).toBe(202);
    const [request] = await arrived(`${partner.path}/orders`, 'webhook.test');
    expect(request!.headers['webhook-id']).toBe(test.body.eventId);
    expect(() => new Webhook(created.body.secret).verify(request!.body, request!.headers as Record<string, string>)).not.toThrow();
    expect(received.filter((r) => r.path === partner.path && r.headers['webhook-id'] === test.body.eventId)).toEqual([]);

    const log = await until(async () => {
      const answer = await api(`/partner/me/webhook-deliveries?endpointId=${created.body.id}&status=succeeded`, withToken(partner.token));
      return answer.body.data?.length ? answer : undefined;
    }, 'the endpoint test in the log');
    expect(log.body.data).toEqual([expect.objectContaining({ eventId: test.body.eventId, endpointId: created.body.id, status: 'succeeded' })]);
  });

  it('when the body breaks a rule, then 400 names the field: an unknown event type, an empty list, a bad URL, an 11th endpoint', async () => {
    const partner = await portalPartner();
    const post = (body: unknown) => api('/partner/me/webhook-endpoints', { body, ...withToken(partner.token) });
    const unknownType = await post({ url: `${receiverUrl}/x`, eventTypes: ['payment.paid', 'payment.refunded'] });
    expectProblem(unknownType, 400, 'VALIDATION_ERROR');
    expect(JSON.stringify(unknownType.body.errors)).toContain('eventTypes');
    expectInvalidField(await post({ url: `${receiverUrl}/x`, eventTypes: [] }), 'eventTypes');
    expectInvalidField(await post({ url: 'ftp://example.com/hooks' }), 'url');
    for (let i = 0; i < 10; i += 1) expect((await post({ url: `${receiverUrl}${partner.path}/${i}` })).status).toBe(201);
    expectInvalidField(await post({ url: `${receiverUrl}${partner.path}/10` }), 'url');
  });

  it('when another partner’s endpoint or an unknown id is named, then 404 on every call; a deleted endpoint is gone', async () => {
    const owner = await portalPartner();
    const stranger = await portalPartner();
    const created = await api('/partner/me/webhook-endpoints', { body: { url: `${receiverUrl}${owner.path}` }, ...withToken(owner.token) });
    const id = created.body.id as string;
    const base = `/partner/me/webhook-endpoints/${id}`;
    for (const [method, path, body] of [
      ['PATCH', base, { enabled: false }],
      ['DELETE', base, undefined],
      ['POST', `${base}/rotate-secret`, {}],
      ['POST', `${base}/recover`, { since: new Date().toISOString() }],
      ['POST', `${base}/test`, undefined],
    ] as const) {
      expectProblem(await api(path, { method, body, ...withToken(stranger.token) }), 404, 'NOT_FOUND');
    }
    expectProblem(await api('/partner/me/webhook-endpoints/whe_nope', { method: 'PATCH', body: { enabled: false }, ...withToken(owner.token) }), 404, 'NOT_FOUND');
    expect((await api(base, { method: 'DELETE', ...withToken(owner.token) })).status).toBe(204);
    expectProblem(await api(base, { method: 'PATCH', body: { enabled: true }, ...withToken(owner.token) }), 404, 'NOT_FOUND');
  });

  it('when a secret is rotated with an overlap, then deliveries verify with either secret; overlapHours outside 0–72 and since in the future are 400s naming the field', async () => {
    const partner = await portalPartner();
    const created = await api('/partner/me/webhook-endpoints', { body: { url: `${receiverUrl}${partner.path}/r` }, ...withToken(partner.token) });
    const base = `/partner/me/webhook-endpoints/${created.body.id}`;
    expectInvalidField(await api(`${base}/rotate-secret`, { body: { overlapHours: 73 }, ...withToken(partner.token) }), 'overlapHours');
    const rotated = await api(`${base}/rotate-secret`, { body: { overlapHours: 2 }, ...withToken(partner.token) });
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    await api(`${base}/test`, { method: 'POST', ...withToken(partner.token) });
    const [request] = await arrived(`${partner.path}/r`, 'webhook.test');
    expect(String(request!.headers['webhook-signature'])).toMatch(/^v1,\S+ v1,\S+$/);
    for (const secret of [rotated.body.secret as string, created.body.secret as string]) {
      expect(() => new Webhook(secret).verify(request!.body, request!.headers as Record<string, string>)).not.toThrow();
    }
    expectInvalidField(await api(`${base}/recover`, { body: { since: new Date(Date.now() + 3_600_000).toISOString() }, ...withToken(partner.token) }), 'since');
    expectInvalidField(await api(`${base}/recover`, { body: { since: new Date(Date.now() - 31 * 86_400_000).toISOString() }, ...withToken(partner.token) }), 'since');
    const recovered = await api(`${base}/recover`, { body: { since: new Date(Date.now() - 3_600_000).toISOString() }, ...withToken(partner.token) });
    expect(recovered.status, recovered.text).toBe(202);
    expect(recovered.body).toEqual({ queued: 0 });
  });
});

describe('the primary endpoint (the webhookUrl)', () => {
  it('when the partner sets its webhookUrl, then it is an endpoint: its secret rotates with an overlap (both secrets verify), and deleting it clears the webhookUrl', async () => {
    const partner = await portalPartner();
    expect((await api('/partner/me/webhook-endpoints', withToken(partner.token))).body.data).toEqual([]);
    await api('/partner/me', { method: 'PATCH', body: { webhookUrl: `${receiverUrl}${partner.path}` }, ...withToken(partner.token) });
    const [primary] = (await api('/partner/me/webhook-endpoints', withToken(partner.token))).body.data;
    expect(primary).toMatchObject({ url: `${receiverUrl}${partner.path}`, eventTypes: null, enabled: true, livemode: true });

    const rotated = await api(`/partner/me/webhook-endpoints/${primary.id}/rotate-secret`, { body: { overlapHours: 1 }, ...withToken(partner.token) });
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body).toMatchObject({ id: primary.id, secret: expect.stringMatching(/^whsec_/) });
    const test = await api(`/partner/me/webhook-endpoints/${primary.id}/test`, { method: 'POST', ...withToken(partner.token) });
    const [request] = await until(() => {
      const found = received.filter((r) => r.path === partner.path && r.headers['webhook-id'] === test.body.eventId);
      return Promise.resolve(found.length ? found : undefined);
    }, 'the test on the primary endpoint', 20_000);
    for (const secret of [rotated.body.secret as string, partner.webhookSecret]) {
      expect(() => new Webhook(secret).verify(request!.body, request!.headers as Record<string, string>)).not.toThrow();
    }

    expect((await api(`/partner/me/webhook-endpoints/${primary.id}`, { method: 'DELETE', ...withToken(partner.token) })).status).toBe(204);
    expect((await api('/partner/me', withToken(partner.token))).body.webhookUrl).toBeNull();
    expect((await api('/partner/me/webhook-endpoints', withToken(partner.token))).body.data).toEqual([]);
  });
});

describe('the endpoints API (operators)', () => {
  it('when an operator lists, adds and disables a partner’s endpoint, then it answers as the portal does; an unknown partner is 404', async () => {
    const partner = await onboardPartner();
    const created = await admin(`/partners/${partner.id}/webhook-endpoints`, { body: { url: `${receiverUrl}/ops/${partner.id}`, description: 'by ops' } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_/);
    const patched = await admin(`/partners/${partner.id}/webhook-endpoints/${created.body.id}`, { method: 'PATCH', body: { enabled: false } });
    expect(patched.body).toMatchObject({ id: created.body.id, enabled: false, disabledReason: null });
    const list = await admin(`/partners/${partner.id}/webhook-endpoints`);
    expect(list.body.data.map((e: { id: string }) => e.id)).toEqual([created.body.id]);
    expect((await admin(`/partners/ptn_01jd0000000000000000000000/webhook-endpoints`)).status).toBe(404);
    const audit = await until(async () => {
      const page = await admin('/audit?limit=100');
      return page.body.data?.find((entry: { action: string; target: string }) => entry.action === 'webhook_endpoint.created' && entry.target === created.body.id);
    }, 'the audit entry');
    expect(audit).toBeTruthy();
  });
});

describe('low balance', () => {
  it('when a debit takes the wallet below lowBalanceThreshold, then one wallet.balance_low webhook arrives with the balance and the threshold', async () => {
    const partner = await fundedPartner(1_000);
    const token = await portalToken(partner.email, partner.password);
    const path = `/hooks/${partner.id}`;
    expectInvalidField(await api('/partner/me', { method: 'PATCH', body: { lowBalanceThreshold: -1 }, ...withToken(token) }), 'lowBalanceThreshold');
    const patched = await api('/partner/me', { method: 'PATCH', body: { webhookUrl: `${receiverUrl}${path}`, lowBalanceThreshold: 900 }, ...withToken(token) });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({ webhookUrl: `${receiverUrl}${path}`, lowBalanceThreshold: 900 });
    expect((await api('/partner/me', withToken(token))).body.lowBalanceThreshold).toBe(900);

    const planId = await planWithSku(`LOWBAL-${randomBytes(3).toString('hex')}`, 300);
    const order = await placeOrderPatiently(partner.apiKey, orderBody(planId));
    expect(order.status, order.text).toBe(201);
    const [event] = await arrived(path, 'wallet.balance_low');
    const wallet = await api('/partner/wallet', { headers: { authorization: `Bearer ${partner.apiKey}` } });
    expect(JSON.parse(event!.body).data).toEqual({ walletBalance: wallet.body.balance, threshold: 900 });
    expect(wallet.body.balance).toBeLessThan(900);
  });
});
