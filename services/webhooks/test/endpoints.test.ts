// Protects §9 "Several endpoints per partner" as a partner's receivers see it: each event reaches every enabled endpoint that takes its type, signed with that endpoint's own secret (both secrets during a rotation's overlap, verifiable with the Standard Webhooks library and the SDK), an endpoint failing for WEBHOOK_DISABLE_AFTER is disabled with a notice, recover resends what it missed once and in order, and a test goes to one endpoint alone.
import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhooks as sdkWebhooks } from '@esim/sdk';
import { newWebhookSecret } from './support/fakePartners.js';
import { paid, provisioned } from './support/fixtures.js';
import type { ReceivedRequest } from './support/receiver.js';
import { createTestEnv, eventually, type TestEnv, type TestWebhooks } from './support/testEnv.js';

let env: TestEnv;
let service: TestWebhooks;
const disableAfterMs = 400;

beforeAll(async () => {
  env = await createTestEnv();
  service = await env.start({ WEBHOOK_RETRY_SCHEDULE: Array(14).fill('60ms').join(','), WEBHOOK_DISABLE_AFTER: `${disableAfterMs}ms` });
});
afterAll(() => env?.cleanup());

const headersOf = (request: ReceivedRequest) => Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
const typesOn = (path: string) => env.receiver.on(path).map((request) => (JSON.parse(request.body) as { type: string }).type);
const idsOn = (path: string) => env.receiver.on(path).map((request) => (JSON.parse(request.body) as { id: string }).id);

async function addEndpoint(partnerId: string, path: string, options: { eventTypes?: string[] | null; enabled?: boolean } = {}) {
  const eventTypes = options.eventTypes ?? null;
  const created = await service.client.createEndpoint({
    partnerId,
    url: env.receiver.url(path),
    description: path,
    allEventTypes: eventTypes === null,
    eventTypes: eventTypes ?? [],
    enabled: options.enabled,
  });
  return { id: created.endpoint!.id, secret: created.secret, path };
}

describe('endpoints', () => {
  it('when a partner adds endpoints with filters, then each event goes to every enabled endpoint that takes it, signed with that endpoint’s secret, and the log names the endpoint', async () => {
    const partner = env.addPartner();
    const orders = await addEndpoint(partner.id, `${partner.path}/orders`, { eventTypes: ['payment.paid', 'provision.provisioned'] });
    const wallet = await addEndpoint(partner.id, `${partner.path}/wallet`, { eventTypes: ['wallet.credited'] });
    const off = await addEndpoint(partner.id, `${partner.path}/off`, { enabled: false });
    expect(orders.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const paidId = await env.publish(paid(partner.id, 'ord_1'));
    await env.publish(provisioned(partner.id, 'ord_1'));
    await env.publish({ partnerId: partner.id, type: 'webhook.test', orderId: null, payload: { message: 'hi' } });

    // The primary endpoint (the webhookUrl) takes every type; the filtered ones only theirs; the disabled one nothing.
    expect(await eventually(() => env.receiver.on(partner.path).length === 3 && env.receiver.on(orders.path).length === 2, 10_000)).toBe(true);
    expect(typesOn(orders.path)).toEqual(['payment.paid', 'provision.provisioned']);
    expect(env.receiver.on(wallet.path)).toEqual([]);
    expect(env.receiver.on(off.path)).toEqual([]);
    const first = env.receiver.on(orders.path)[0]!;
    expect(first.headers['x-service-signature']).toBe(createHmac('sha256', orders.secret).update(first.body).digest('hex'));
    expect(first.headers['x-service-signature-previous']).toBeUndefined();
    expect(() => new Webhook(orders.secret).verify(first.body, headersOf(first))).not.toThrow();

    const { deliveries } = await service.client.listDeliveries({ partnerId: partner.id, page: { page: 1, limit: 100 } });
    expect(deliveries.filter((d) => d.eventId === paidId).map((d) => d.endpointId).sort()).toEqual(
      [orders.id, (await service.client.listEndpoints({ partnerId: partner.id })).endpoints.find((e) => e.primary)!.id].sort(),
    );
    const onlyOrders = await service.client.listDeliveries({ partnerId: partner.id, endpointId: orders.id, page: { page: 1, limit: 100 } });
    expect(onlyOrders.deliveries.map((d) => d.eventType).sort()).toEqual(['payment.paid', 'provision.provisioned']);
  });

  it('when endpoints are listed, then the primary one carries the webhookUrl and the others their own, without secrets, oldest first', async () => {
    const partner = env.addPartner();
    const extra = await addEndpoint(partner.id, `${partner.path}/x`, { eventTypes: ['esim.installed'] });
    const { endpoints } = await service.client.listEndpoints({ partnerId: partner.id });
    expect(endpoints.map((e) => ({ url: e.url, primary: e.primary, all: e.allEventTypes, types: e.eventTypes, enabled: e.enabled, livemode: e.livemode }))).toEqual([
      { url: env.receiver.url(partner.path), primary: true, all: true, types: [], enabled: true, livemode: true },
      { url: env.receiver.url(extra.path), primary: false, all: false, types: ['esim.installed'], enabled: true, livemode: true },
    ]);
    expect(JSON.stringify(endpoints)).not.toContain('whsec_');
  });

  it('when the partner has no webhookUrl, then the primary endpoint is not listed and its deliveries end no_endpoint while the others are delivered', async () => {
    const partner = env.addPartner({ url: null });
    const other = await addEndpoint(partner.id, `/p/${partner.id}/other`);
    expect((await service.client.listEndpoints({ partnerId: partner.id })).endpoints.map((e) => e.id)).toEqual([other.id]);
    const eventId = await env.publish(paid(partner.id));
    expect(await eventually(() => env.receiver.on(other.path).length === 1, 10_000)).toBe(true);
    expect(await eventually(async () => {
      const { deliveries } = await service.client.listDeliveries({ partnerId: partner.id, page: { page: 1, limit: 10 } });
      return deliveries.filter((d) => d.eventId === eventId).map((d) => d.status).sort().join() === 'no_endpoint,succeeded';
    }, 10_000)).toBe(true);
  });

  it('when a partner asks for an 11th endpoint, an unknown event type or an empty list, then VALIDATION_ERROR names the field', async () => {
    const partner = env.addPartner();
    for (let i = 0; i < 9; i += 1) await addEndpoint(partner.id, `${partner.path}/${i}`);
    await expect(addEndpoint(partner.id, `${partner.path}/10`)).rejects.toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ path: 'url' }] });
    const other = env.addPartner();
    await expect(addEndpoint(other.id, `${other.path}/a`, { eventTypes: ['payment.paid', 'payment.refunded'] })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ path: 'eventTypes.1' }],
    });
    await expect(addEndpoint(other.id, `${other.path}/b`, { eventTypes: [] })).rejects.toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ path: 'eventTypes' }] });
  });

  it('when another partner’s endpoint, an unknown id or a malformed one is named, then NOT_FOUND', async () => {
    const owner = env.addPartner();
    const stranger = env.addPartner();
    const endpoint = await addEndpoint(owner.id, `${owner.path}/mine`);
    for (const call of [
      () => service.client.updateEndpoint({ partnerId: stranger.id, id: endpoint.id, enabled: false }),
      () => service.client.deleteEndpoint({ partnerId: stranger.id, id: endpoint.id }),
      () => service.client.rotateEndpointSecret({ partnerId: stranger.id, id: endpoint.id }),
      () => service.client.recoverEndpoint({ partnerId: stranger.id, id: endpoint.id, since: new Date().toISOString() }),
      () => service.client.sendEndpointTest({ partnerId: stranger.id, id: endpoint.id }),
      () => service.client.updateEndpoint({ partnerId: owner.id, id: 'whe_01jd0000000000000000000000', enabled: false }),
      () => service.client.deleteEndpoint({ partnerId: owner.id, id: 'nope' }),
    ]) {
      await expect(call()).rejects.toMatchObject({ code: 'NOT_FOUND' });
    }
    expect((await service.client.listEndpoints({ partnerId: owner.id })).endpoints.find((e) => e.id === endpoint.id)).toMatchObject({ enabled: true });
  });
});

describe('secret rotation with an overlap', () => {
  it('when an endpoint’s secret is rotated with an overlap, then each delivery carries both signatures, and the Standard Webhooks library and the SDK verify it with either secret', async () => {
    const partner = env.addPartner();
    const endpoint = await addEndpoint(partner.id, `${partner.path}/rotating`);
    const rotated = await service.client.rotateEndpointSecret({ partnerId: partner.id, id: endpoint.id, overlapHours: 2 });
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(endpoint.secret);

    await env.publish(paid(partner.id));
    expect(await eventually(() => env.receiver.on(endpoint.path).length === 1, 10_000)).toBe(true);
    const request = env.receiver.on(endpoint.path)[0]!;
    const headers = headersOf(request);
    expect(headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
    expect(headers['x-service-signature']).toBe(createHmac('sha256', rotated.secret).update(request.body).digest('hex'));
    expect(headers['x-service-signature-previous']).toBe(createHmac('sha256', endpoint.secret).update(request.body).digest('hex'));
    for (const secret of [rotated.secret, endpoint.secret]) {
      expect(() => new Webhook(secret).verify(request.body, headers)).not.toThrow();
      await expect(sdkWebhooks.verify(request.body, headers, secret)).resolves.toMatchObject({ type: 'payment.paid' });
      await expect(sdkWebhooks.verify(request.body, headers, secret, { scheme: 'service' })).resolves.toMatchObject({ type: 'payment.paid' });
    }
    expect(() => new Webhook(newWebhookSecret()).verify(request.body, headers)).toThrow();
    await expect(sdkWebhooks.verify(request.body, headers, newWebhookSecret(), { scheme: 'service' })).rejects.toThrow();
  });

  it('when the overlap is 0, then only the new secret signs; outside 0–72 it is VALIDATION_ERROR naming overlapHours and the secret is unchanged', async () => {
    const partner = env.addPartner();
    const endpoint = await addEndpoint(partner.id, `${partner.path}/now`);
    await expect(service.client.rotateEndpointSecret({ partnerId: partner.id, id: endpoint.id, overlapHours: 73 })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ path: 'overlapHours' }],
    });
    await expect(service.client.rotateEndpointSecret({ partnerId: partner.id, id: endpoint.id, overlapHours: -1 })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    const rotated = await service.client.rotateEndpointSecret({ partnerId: partner.id, id: endpoint.id, overlapHours: 0 });
    await env.publish(paid(partner.id));
    expect(await eventually(() => env.receiver.on(endpoint.path).length === 1, 10_000)).toBe(true);
    const headers = headersOf(env.receiver.on(endpoint.path)[0]!);
    expect(headers['webhook-signature']).toMatch(/^v1,\S+$/);
    expect(headers['x-service-signature-previous']).toBeUndefined();
    expect(() => new Webhook(rotated.secret).verify(env.receiver.on(endpoint.path)[0]!.body, headers)).not.toThrow();
  });

  it('when the primary secret is in its overlap at the partners service, then primary deliveries carry both signatures too', async () => {
    const partner = env.addPartner();
    const previous = partner.secret;
    const current = newWebhookSecret();
    await env.changeEndpoint(partner.id, { url: env.receiver.url(partner.path), secret: current, previousSecret: previous } as never);
    await env.publish(paid(partner.id));
    expect(await eventually(() => env.receiver.on(partner.path).length === 1, 10_000)).toBe(true);
    const request = env.receiver.on(partner.path)[0]!;
    for (const secret of [current, previous]) expect(() => new Webhook(secret).verify(request.body, headersOf(request))).not.toThrow();
    expect(request.headers['x-service-signature-previous']).toBe(createHmac('sha256', previous).update(request.body).digest('hex'));
  });
});

describe('auto-disable, recover and test', () => {
  it('when every attempt to an endpoint fails for WEBHOOK_DISABLE_AFTER and at least 10 times, then it is disabled as failing, the partner is e-mailed, its other endpoints get webhook.endpoint_disabled, and PATCH enabled:true enables it again', async () => {
    const partner = env.addPartner();
    const failing = await addEndpoint(partner.id, `${partner.path}/down`);
    env.receiver.behave(failing.path, () => ({ status: 503 }));
    await env.publish(paid(partner.id));

    expect(await eventually(async () => (await service.client.listEndpoints({ partnerId: partner.id })).endpoints.some((e) => e.id === failing.id && !e.enabled), 15_000)).toBe(true);
    expect(env.receiver.on(failing.path).length).toBeGreaterThanOrEqual(10);
    const view = (await service.client.listEndpoints({ partnerId: partner.id })).endpoints.find((e) => e.id === failing.id)!;
    expect(view).toMatchObject({ enabled: false, disabledReason: 'failing' });

    expect(await eventually(() => typesOn(partner.path).includes('webhook.endpoint_disabled'), 10_000)).toBe(true);
    const notice = env.receiver.on(partner.path).find((r) => (JSON.parse(r.body) as { type: string }).type === 'webhook.endpoint_disabled')!;
    expect((JSON.parse(notice.body) as { data: unknown }).data).toEqual({
      endpoint: { id: failing.id, url: failing.path && env.receiver.url(failing.path), description: failing.path, eventTypes: null, enabled: false, livemode: true, disabledReason: 'failing', createdAt: expect.any(String) },
    });
    expect(typesOn(failing.path)).not.toContain('webhook.endpoint_disabled');
    const mails = await env.query<{ data: { to: string; template: string; values: Record<string, string> } }>(
      `SELECT payload->'data' AS data FROM webhooks.outbox WHERE payload->>'type' = 'mail.requested'`,
    );
    expect(mails.filter((m) => m.data.values.endpointId === failing.id && m.data.template === 'webhook_endpoint_disabled')).toEqual([
      { data: { to: `${partner.id}@partner.example`, template: 'webhook_endpoint_disabled', values: { endpointId: failing.id, url: env.receiver.url(failing.path), failingFor: '400 ms' }, sealedValues: {} } },
    ]);

    // Disabled: no new delivery is made to it; the rest of the failed one is given up.
    const before = env.receiver.on(failing.path).length;
    await env.publish(paid(partner.id));
    expect(await eventually(() => typesOn(partner.path).filter((t) => t === 'payment.paid').length === 2, 10_000)).toBe(true);
    expect(env.receiver.on(failing.path).length).toBe(before);

    const enabled = await service.client.updateEndpoint({ partnerId: partner.id, id: failing.id, enabled: true });
    expect(enabled).toMatchObject({ enabled: true });
    expect(enabled.disabledReason).toBeUndefined();
  });

  it('when an endpoint missed events, then recover resends each once, in order per order, and a second recover sends nothing; since in the future or past 30 days is VALIDATION_ERROR naming since', async () => {
    const partner = env.addPartner();
    const late = await addEndpoint(partner.id, `${partner.path}/late`, { enabled: false });
    const since = new Date(Date.now() - 1_000).toISOString();
    const ids = [await env.publish(paid(partner.id, 'ord_r')), await env.publish(provisioned(partner.id, 'ord_r')), await env.publish(paid(partner.id))];
    expect(await eventually(() => env.receiver.on(partner.path).length === 3, 10_000)).toBe(true);
    expect(env.receiver.on(late.path)).toEqual([]);

    await service.client.updateEndpoint({ partnerId: partner.id, id: late.id, enabled: true });
    expect((await service.client.recoverEndpoint({ partnerId: partner.id, id: late.id, since })).queued).toBe(3);
    expect(await eventually(() => env.receiver.on(late.path).length === 3, 10_000)).toBe(true);
    // Each once; one order's events in their order (other orders may go side by side, as always).
    expect([...idsOn(late.path)].sort()).toEqual([...ids].sort());
    expect(idsOn(late.path).filter((id) => id !== ids[2])).toEqual(ids.slice(0, 2));
    expect((await service.client.recoverEndpoint({ partnerId: partner.id, id: late.id, since })).queued).toBe(0);

    for (const bad of [new Date(Date.now() + 60_000).toISOString(), new Date(Date.now() - 31 * 86_400_000).toISOString(), 'yesterday']) {
      await expect(service.client.recoverEndpoint({ partnerId: partner.id, id: late.id, since: bad })).rejects.toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ path: 'since' }] });
    }
  });

  it('when a failed delivery is recovered, then it is sent again with a fresh schedule and succeeds once the receiver is back', async () => {
    const partner = env.addPartner();
    const flaky = await addEndpoint(partner.id, `${partner.path}/flaky`);
    let healthy = false;
    env.receiver.behave(flaky.path, () => ({ status: healthy ? 204 : 500 }));
    const eventId = await env.publish(paid(partner.id));
    const deliveryTo = async () =>
      (await service.client.listDeliveries({ partnerId: partner.id, endpointId: flaky.id, page: { page: 1, limit: 10 } })).deliveries.find((d) => d.eventId === eventId);
    expect(await eventually(async () => (await deliveryTo())?.status === 'failed', 15_000)).toBe(true);
    healthy = true;
    await service.client.updateEndpoint({ partnerId: partner.id, id: flaky.id, enabled: true });
    expect((await service.client.recoverEndpoint({ partnerId: partner.id, id: flaky.id, since: new Date(Date.now() - 60_000).toISOString() })).queued).toBe(1);
    expect(await eventually(async () => (await deliveryTo())?.status === 'succeeded', 10_000)).toBe(true);
  });

  it('when a test is sent to one endpoint, then only that endpoint gets the webhook.test', async () => {
    const partner = env.addPartner();
    const a = await addEndpoint(partner.id, `${partner.path}/a`);
    const b = await addEndpoint(partner.id, `${partner.path}/b`);
    const { eventId } = await service.client.sendEndpointTest({ partnerId: partner.id, id: b.id });
    expect(await eventually(() => env.receiver.on(b.path).length === 1, 10_000)).toBe(true);
    expect(idsOn(b.path)).toEqual([eventId]);
    expect(typesOn(b.path)).toEqual(['webhook.test']);
    // Nothing else is on its way: a later event reaches a and the primary, and the test never did.
    await env.publish(paid(partner.id));
    expect(await eventually(() => env.receiver.on(a.path).length === 1 && env.receiver.on(partner.path).length === 1, 10_000)).toBe(true);
    expect(typesOn(a.path)).toEqual(['payment.paid']);
    expect(typesOn(partner.path)).toEqual(['payment.paid']);
  });
});

describe('event retention', () => {
  it('when events are older than 30 days, then the retention job deletes them with their deliveries, except one with a delivery still pending', async () => {
    const { deleteExpiredEvents } = await import('../src/store/retentionStore.js');
    const { default: pg } = await import('pg');
    const db = new pg.Client({ connectionString: env.databaseUrl });
    await db.connect();
    try {
      const insert = async (id: string, ageDays: number, status: string) => {
        await db.query(`INSERT INTO webhooks.events (id, partner_id, type, order_id, payload, created_at) VALUES ($1, 'ptn_old', 'webhook.test', NULL, '{}', now() - $2 * interval '1 day')`, [id, ageDays]);
        await db.query(
          `INSERT INTO webhooks.deliveries (id, event_id, partner_id, endpoint_id, status, next_attempt_at) VALUES ($1, $2, 'ptn_old', 'whe_old', $3, CASE WHEN $3 = 'pending' THEN now() + interval '1 hour' END)`,
          [id.replace('evt_', 'dlv_'), id, status],
        );
      };
      await insert('evt_old_done', 31, 'failed');
      await insert('evt_old_busy', 31, 'pending');
      await insert('evt_recent', 29, 'succeeded');
      expect(await deleteExpiredEvents(db, 30 * 86_400_000, 100)).toBe(1);
      const left = await db.query<{ id: string }>(`SELECT id FROM webhooks.events WHERE partner_id = 'ptn_old' ORDER BY id`);
      expect(left.rows.map((row) => row.id)).toEqual(['evt_old_busy', 'evt_recent']);
      expect((await db.query(`SELECT 1 FROM webhooks.deliveries WHERE event_id = 'evt_old_done'`)).rowCount).toBe(0);
    } finally {
      await db.end();
    }
  });
});
