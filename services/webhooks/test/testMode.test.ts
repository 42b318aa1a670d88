// Protects test mode (§14) in the webhooks service: a test account's (`ptn_X_test`) events reach only its test endpoints (the testWebhookUrl, signed with the test secret) with `livemode: false`, live events never reach them, endpoints and delivery logs are per mode, the test-data wipe deletes the test account's rows alone, and every endpoint change queues its e-mail (#24).
import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PermanentEventError } from '@esim/events';
import { accountIdOf, newId } from '@esim/ids';
import { deleteTestData } from '../src/domain/deleteTestData.js';
import { newWebhookSecret } from './support/fakePartners.js';
import { paid } from './support/fixtures.js';
import type { ReceivedRequest } from './support/receiver.js';
import { createTestEnv, eventually, type TestEnv, type TestWebhooks } from './support/testEnv.js';

let env: TestEnv;
let service: TestWebhooks;

beforeAll(async () => {
  env = await createTestEnv();
  service = await env.start({ WEBHOOK_RETRY_SCHEDULE: '100ms' });
});
afterAll(() => env?.cleanup());

const headersOf = (request: ReceivedRequest) => Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
const bodyOf = (request: ReceivedRequest) => JSON.parse(request.body) as { id: string; type: string; livemode: boolean };
const page = { page: 1, limit: 100 };

/** A live partner (receiver at /p/<id>) and its test account, whose testWebhookUrl is /p/<id>/test with a secret of its own. */
function partnerWithTestAccount() {
  const live = env.addPartner();
  const testId = accountIdOf(live.id, false);
  const testPath = `${live.path}/test`;
  const testSecret = newWebhookSecret();
  env.partners.setEndpoint(testId, { url: env.receiver.url(testPath), secret: testSecret });
  return { live, testId, testPath, testSecret };
}

async function addEndpoint(partnerId: string, path: string, audit?: { operator: string; requestId: string }) {
  const created = await service.client.createEndpoint({ partnerId, url: env.receiver.url(path), description: path, allEventTypes: true, eventTypes: [], audit });
  return { id: created.endpoint!.id, livemode: created.endpoint!.livemode, secret: created.secret, path };
}

async function changeMails(endpointId: string) {
  const rows = await env.query<{ data: { to: string; template: string; values: Record<string, string> } }>(
    `SELECT payload->'data' AS data FROM webhooks.outbox WHERE payload->>'type' = 'mail.requested' AND payload->'data'->>'template' = 'webhook_endpoint_changed' ORDER BY id`,
  );
  return rows.map((row) => row.data).filter((mail) => mail.values.endpointId === endpointId);
}

describe('test mode', () => {
  it('when a test account’s event and a live event are published, then the test one reaches only the testWebhookUrl, signed with the test secret and livemode false, and the live one only the webhookUrl', async () => {
    const { live, testId, testPath, testSecret } = partnerWithTestAccount();
    const testEventId = await env.publish(paid(testId));
    const liveEventId = await env.publish(paid(live.id));

    expect(await eventually(() => env.receiver.on(testPath).length >= 1 && env.receiver.on(live.path).length >= 1, 10_000)).toBe(true);
    const [testRequest] = env.receiver.on(testPath);
    expect(env.receiver.on(testPath).map((r) => bodyOf(r).id)).toEqual([testEventId]);
    expect(bodyOf(testRequest!)).toMatchObject({ id: testEventId, type: 'payment.paid', livemode: false });
    expect(Object.keys(bodyOf(testRequest!))).toEqual(['id', 'type', 'createdAt', 'livemode', 'data']);
    expect(testRequest!.headers['x-service-signature']).toBe(createHmac('sha256', testSecret).update(testRequest!.body).digest('hex'));
    expect(() => new Webhook(testSecret).verify(testRequest!.body, headersOf(testRequest!))).not.toThrow();
    expect(() => new Webhook(live.secret).verify(testRequest!.body, headersOf(testRequest!))).toThrow();

    const [liveRequest] = env.receiver.on(live.path);
    expect(env.receiver.on(live.path).map((r) => bodyOf(r).id)).toEqual([liveEventId]);
    expect(bodyOf(liveRequest!)).toMatchObject({ id: liveEventId, livemode: true });
    expect(liveRequest!.headers['x-service-signature']).toBe(createHmac('sha256', live.secret).update(liveRequest!.body).digest('hex'));

    // Both deliveries are over: nothing else is on its way to either URL.
    expect(await eventually(async () => (await env.deliveryOf(testEventId))?.status === 'succeeded' && (await env.deliveryOf(liveEventId))?.status === 'succeeded')).toBe(true);
    expect(env.receiver.on(testPath)).toHaveLength(1);
    expect(env.receiver.on(live.path)).toHaveLength(1);
  });

  it('when the partner asks for a test event with its test account, then webhook.test goes to the test URL alone with livemode false', async () => {
    const { live, testId, testPath } = partnerWithTestAccount();
    const { eventId } = await service.client.sendTestEvent({ partnerId: testId });
    expect(await eventually(() => env.receiver.on(testPath).length === 1, 10_000)).toBe(true);
    expect(bodyOf(env.receiver.on(testPath)[0]!)).toMatchObject({ id: eventId, type: 'webhook.test', livemode: false });
    expect(await eventually(async () => (await env.deliveryOf(eventId))?.status === 'succeeded')).toBe(true);
    expect(env.receiver.on(live.path)).toEqual([]);
  });

  it('when endpoints are added per mode, then each mode lists and receives only its own, at most 10 each, and the owner reaches either by id', async () => {
    const { live, testId, testPath } = partnerWithTestAccount();
    const testExtra = await addEndpoint(testId, `${testPath}/extra`);
    const liveExtra = await addEndpoint(live.id, `${live.path}/extra`);
    expect([testExtra.livemode, liveExtra.livemode]).toEqual([false, true]);

    const liveList = (await service.client.listEndpoints({ partnerId: live.id })).endpoints;
    const testList = (await service.client.listEndpoints({ partnerId: testId })).endpoints;
    expect(liveList.map((e) => [e.url, e.livemode, e.primary])).toEqual([
      [env.receiver.url(live.path), true, true],
      [env.receiver.url(liveExtra.path), true, false],
    ]);
    expect(testList.map((e) => [e.url, e.livemode, e.primary])).toEqual([
      [env.receiver.url(testPath), false, true],
      [env.receiver.url(testExtra.path), false, false],
    ]);

    const testEventId = await env.publish(paid(testId));
    expect(await eventually(() => env.receiver.on(testExtra.path).length === 1 && env.receiver.on(testPath).length === 1, 10_000)).toBe(true);
    const extraRequest = env.receiver.on(testExtra.path)[0]!;
    expect(bodyOf(extraRequest)).toMatchObject({ id: testEventId, livemode: false });
    expect(() => new Webhook(testExtra.secret).verify(extraRequest.body, headersOf(extraRequest))).not.toThrow();
    expect(env.receiver.on(liveExtra.path)).toEqual([]);
    expect(env.receiver.on(live.path)).toEqual([]);

    // 10 per mode, the primary one counted: the test account has 2, so 8 more fit; the live mode still has room.
    for (let n = 0; n < 8; n++) await addEndpoint(testId, `${testPath}/more-${n}`);
    await expect(addEndpoint(testId, `${testPath}/eleventh`)).rejects.toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ path: 'url' }] });
    await expect(addEndpoint(live.id, `${live.path}/third`)).resolves.toMatchObject({ livemode: true });

    // The owner (either of its account ids) reaches a test endpoint by id; another partner gets 404.
    const updated = await service.client.updateEndpoint({ partnerId: live.id, id: testExtra.id, description: 'renamed', setEventTypes: false, allEventTypes: false, eventTypes: [] });
    expect(updated).toMatchObject({ id: testExtra.id, livemode: false, description: 'renamed', partnerId: testId });
    const stranger = env.addPartner();
    for (const partnerId of [stranger.id, accountIdOf(stranger.id, false)]) {
      await expect(service.client.updateEndpoint({ partnerId, id: testExtra.id, description: 'x', setEventTypes: false, allEventTypes: false, eventTypes: [] })).rejects.toMatchObject({
        code: 'NOT_FOUND',
      });
    }
  });

  it('when deliveries are listed, then one account’s log is of its mode alone and the every-partner log is live unless test is asked for', async () => {
    const { live, testId } = partnerWithTestAccount();
    const testEventId = await env.publish(paid(testId));
    const liveEventId = await env.publish(paid(live.id));
    expect(await eventually(async () => (await env.deliveryOf(testEventId)) !== undefined && (await env.deliveryOf(liveEventId)) !== undefined)).toBe(true);

    const testLog = await service.client.listDeliveries({ partnerId: testId, status: '', endpointId: '', page });
    expect(testLog.deliveries.map((d) => [d.eventId, d.livemode, d.partnerId])).toEqual([[testEventId, false, testId]]);
    const liveLog = await service.client.listDeliveries({ partnerId: live.id, status: '', endpointId: '', page });
    expect(liveLog.deliveries.map((d) => [d.eventId, d.livemode])).toEqual([[liveEventId, true]]);

    const everyLive = await service.client.listDeliveries({ partnerId: '', status: '', endpointId: '', page });
    expect(everyLive.deliveries.every((d) => d.livemode)).toBe(true);
    expect(everyLive.deliveries.map((d) => d.eventId)).toContain(liveEventId);
    expect(everyLive.deliveries.map((d) => d.eventId)).not.toContain(testEventId);
    const everyTest = await service.client.listDeliveries({ partnerId: '', livemode: false, status: '', endpointId: '', page });
    expect(everyTest.deliveries.every((d) => !d.livemode && d.partnerId.endsWith('_test'))).toBe(true);
    expect(everyTest.deliveries.map((d) => d.eventId)).toContain(testEventId);
    expect(everyTest.total).toBe(everyTest.deliveries.length);
  });

  it('when the partner wipes its test data, then every event, delivery and endpoint of the test account goes, the live ones stay, and a second wipe changes nothing', async () => {
    const { live, testId, testPath } = partnerWithTestAccount();
    await addEndpoint(testId, `${testPath}/extra`);
    const liveExtra = await addEndpoint(live.id, `${live.path}/extra`);
    const testEventId = await env.publish(paid(testId));
    const liveEventId = await env.publish(paid(live.id));
    expect(await eventually(async () => (await env.deliveryOf(testEventId))?.status === 'succeeded' && (await env.deliveryOf(liveEventId))?.status === 'succeeded')).toBe(true);

    const counts = async (partnerId: string) => {
      const [row] = await env.query<{ events: number; deliveries: number; endpoints: number }>(
        `SELECT (SELECT count(*) FROM webhooks.events WHERE partner_id = $1)::int AS events,
                (SELECT count(*) FROM webhooks.deliveries WHERE partner_id = $1)::int AS deliveries,
                (SELECT count(*) FROM webhooks.endpoints WHERE partner_id = $1)::int AS endpoints`,
        [partnerId],
      );
      return row!;
    };
    expect(await counts(testId)).toEqual({ events: 1, deliveries: 2, endpoints: 2 });
    const liveBefore = await counts(live.id);
    expect(liveBefore).toEqual({ events: 1, deliveries: 2, endpoints: 2 });

    await env.publishFact('partners.test_data.delete_requested', { accountId: testId, requestedAt: new Date().toISOString() });
    expect(await eventually(async () => (await counts(testId)).events === 0, 10_000)).toBe(true);
    expect(await counts(testId)).toEqual({ events: 0, deliveries: 0, endpoints: 0 });
    expect(await counts(live.id)).toEqual(liveBefore);

    const again = await env.publishFact('partners.test_data.delete_requested', { accountId: testId, requestedAt: new Date().toISOString() });
    const processed = async () => (await env.query(`SELECT 1 FROM webhooks.processed_events WHERE event_id = $1`, [again.id])).length === 1;
    expect(await eventually(processed, 10_000)).toBe(true);
    expect(await counts(live.id)).toEqual(liveBefore);
    expect((await service.client.listEndpoints({ partnerId: live.id })).endpoints.map((e) => e.id)).toContain(liveExtra.id);
  });

  it('when a row’s livemode disagrees with its account id, then the database refuses it: the mode is the id’s', async () => {
    const live = env.addPartner();
    const insert = (partnerId: string, livemode: boolean) =>
      env.query(`INSERT INTO webhooks.endpoints (id, partner_id, livemode, is_primary) VALUES ($1, $2, $3, true)`, [newId('whe'), partnerId, livemode]);
    await expect(insert(live.id, false)).rejects.toThrow(/endpoints_livemode_of_account/);
    await expect(insert(accountIdOf(live.id, false), true)).rejects.toThrow(/endpoints_livemode_of_account/);
    await expect(insert(accountIdOf(live.id, false), false)).resolves.toBeDefined();
  });

  it('when a wipe names a live account, then it is refused for good and nothing is deleted', async () => {
    const live = env.addPartner();
    const queries: string[] = [];
    const db = { query: async (text: string) => (queries.push(text), { rows: [], rowCount: 0 }) };
    const event = { id: newId('evt'), type: 'partners.test_data.delete_requested' as const, occurredAt: new Date().toISOString(), data: { accountId: live.id, requestedAt: new Date().toISOString() } };
    const logger = { info: () => {} };
    await expect(deleteTestData(db as never, event, logger as never)).rejects.toBeInstanceOf(PermanentEventError);
    expect(queries).toEqual([]);
  });

  it('when an endpoint is created, changed, rotated or deleted, by the partner or an operator, then the partner’s e-mail is queued with the change, the mode and who made it', async () => {
    const { live, testId, testPath } = partnerWithTestAccount();
    const operator = { operator: 'admin:ops@example.com', requestId: 'req-1' };
    const endpoint = await addEndpoint(testId, `${testPath}/mailed`);
    await service.client.updateEndpoint({ partnerId: live.id, id: endpoint.id, enabled: false, setEventTypes: false, allEventTypes: false, eventTypes: [], audit: operator });
    await service.client.rotateEndpointSecret({ partnerId: live.id, id: endpoint.id, overlapHours: 0 });
    await service.client.deleteEndpoint({ partnerId: live.id, id: endpoint.id, audit: operator });

    const url = env.receiver.url(endpoint.path);
    const mail = (change: string, changedBy: string) => ({
      to: `${testId}@partner.example`,
      template: 'webhook_endpoint_changed',
      values: { change, endpointId: endpoint.id, url, mode: 'test', changedBy },
      sealedValues: {},
    });
    expect(await changeMails(endpoint.id)).toEqual([
      mail('created', 'you, from the partner portal'),
      mail('updated', 'an operator'),
      mail('secret_rotated', 'you, from the partner portal'),
      mail('deleted', 'an operator'),
    ]);

    // The primary endpoint's description is ours to change and to announce; its URL is the partners service's (it e-mails that).
    const primary = (await service.client.listEndpoints({ partnerId: live.id })).endpoints.find((e) => e.primary)!;
    await service.client.updateEndpoint({ partnerId: live.id, id: primary.id, description: 'main', setEventTypes: false, allEventTypes: false, eventTypes: [] });
    expect(await changeMails(primary.id)).toEqual([
      { to: `${live.id}@partner.example`, template: 'webhook_endpoint_changed', values: { change: 'updated', endpointId: primary.id, url: env.receiver.url(live.path), mode: 'live', changedBy: 'you, from the partner portal' }, sealedValues: {} },
    ]);
  });
});
