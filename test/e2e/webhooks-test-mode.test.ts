// Protects test mode's webhooks (§14, §9) through the gateway and the real services: a test event reaches only the testWebhookUrl, signed with the test secret (both signatures) and livemode false, a live event only the webhookUrl; endpoints and delivery logs are per mode for partners and operators; the test-data wipe empties the test log and endpoints and leaves live ones; every endpoint change is e-mailed (#24).
import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, api, expectInvalidField, onboardPartner, portalToken, until, waitForMail, withToken, type Onboarded } from './support/client.js';
import { startReceiver, type ReceivedWebhook, type WebhookReceiver } from './support/receiver.js';

let receiver: WebhookReceiver;
let receiverUrl = '';
const received: ReceivedWebhook[] = [];

beforeAll(async () => {
  receiver = await startReceiver(received);
  receiverUrl = receiver.url;
});
afterAll(() => receiver?.close());

const on = (path: string) => received.filter((r) => r.path === path);
const withEventId = (eventId: string) => received.filter((r) => r.headers['webhook-id'] === eventId);
const arrived = (path: string, eventId: string) =>
  until(() => Promise.resolve(on(path).find((r) => r.headers['webhook-id'] === eventId)), `${eventId} at ${path}`, 20_000);

interface TestModePartner extends Onboarded {
  token: string;
  livePath: string;
  testPath: string;
  testSecret: string;
}

/** An approved partner with a live webhookUrl and a testWebhookUrl on the receiver, and its test signing secret. */
async function testModePartner(): Promise<TestModePartner> {
  const partner = await onboardPartner();
  const token = await portalToken(partner.email, partner.password);
  const livePath = `/live/${partner.id}`;
  const testPath = `/test/${partner.id}`;
  const patched = await api('/partner/me', { method: 'PATCH', body: { webhookUrl: `${receiverUrl}${livePath}`, testWebhookUrl: `${receiverUrl}${testPath}` }, ...withToken(token) });
  expect(patched.status, patched.text).toBe(200);
  const secret = await api('/partner/me/test-webhook-secret', { method: 'POST', ...withToken(token) });
  expect(secret.status, secret.text).toBeLessThan(300);
  return { ...partner, token, livePath, testPath, testSecret: secret.body.secret as string };
}

const serviceSignature = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('hex');

/** The log once every listed delivery is over (no pending one). */
async function settledLog(path: string, token: string | undefined, count: number) {
  return until(async () => {
    const answer = token ? await api(path, withToken(token)) : await admin(path);
    const data = answer.body.data as Array<{ status: string }> | undefined;
    return data && data.length >= count && data.every((d) => d.status !== 'pending') ? answer : undefined;
  }, `${count} settled deliveries at ${path}`, 20_000);
}

describe('test-mode webhooks through the gateway', () => {
  it('when a test event and a live event are sent, then the test one reaches only the testWebhookUrl signed with the test secret and livemode false, the live one only the webhookUrl, and each log lists its own mode', async () => {
    const partner = await testModePartner();
    const testEvent = await api('/partner/me/webhook/test?livemode=false', { method: 'POST', ...withToken(partner.token) });
    expect(testEvent.status, testEvent.text).toBe(202);
    const liveEvent = await api('/partner/me/webhook/test', { method: 'POST', ...withToken(partner.token) });
    expect(liveEvent.status, liveEvent.text).toBe(202);

    const testRequest = await arrived(partner.testPath, testEvent.body.eventId);
    const body = JSON.parse(testRequest.body) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['id', 'type', 'createdAt', 'livemode', 'data']);
    expect(body).toMatchObject({ id: testEvent.body.eventId, type: 'webhook.test', livemode: false });
    expect(testRequest.headers['x-service-signature']).toBe(serviceSignature(partner.testSecret, testRequest.body));
    expect(() => new Webhook(partner.testSecret).verify(testRequest.body, testRequest.headers as Record<string, string>)).not.toThrow();
    expect(() => new Webhook(partner.webhookSecret).verify(testRequest.body, testRequest.headers as Record<string, string>)).toThrow();

    const liveRequest = await arrived(partner.livePath, liveEvent.body.eventId);
    expect(JSON.parse(liveRequest.body)).toMatchObject({ id: liveEvent.body.eventId, livemode: true });
    expect(liveRequest.headers['x-service-signature']).toBe(serviceSignature(partner.webhookSecret, liveRequest.body));
    expect(() => new Webhook(partner.webhookSecret).verify(liveRequest.body, liveRequest.headers as Record<string, string>)).not.toThrow();

    // Both deliveries are over: each event went to its own mode's URL and nowhere else.
    const testLog = await settledLog('/partner/me/webhook-deliveries?livemode=false', partner.token, 1);
    const liveLog = await settledLog('/partner/me/webhook-deliveries', partner.token, 1);
    expect(withEventId(testEvent.body.eventId).map((r) => r.path)).toEqual([partner.testPath]);
    expect(withEventId(liveEvent.body.eventId).map((r) => r.path)).toEqual([partner.livePath]);
    expect(on(partner.livePath).map((r) => r.headers['webhook-id'])).toEqual([liveEvent.body.eventId]);
    expect(on(partner.testPath).map((r) => r.headers['webhook-id'])).toEqual([testEvent.body.eventId]);

    expect(testLog.body.data).toEqual([expect.objectContaining({ eventId: testEvent.body.eventId, livemode: false, status: 'succeeded' })]);
    expect(liveLog.body.data).toEqual([expect.objectContaining({ eventId: liveEvent.body.eventId, livemode: true, status: 'succeeded' })]);

    // Operators: live unless they ask; a partner's test log with ?livemode=false.
    const adminTest = await admin(`/webhook-deliveries?partnerId=${partner.id}&livemode=false`);
    expect(adminTest.body.data).toEqual([expect.objectContaining({ eventId: testEvent.body.eventId, livemode: false, partnerId: `${partner.id}_test` })]);
    const adminLive = await admin(`/webhook-deliveries?partnerId=${partner.id}`);
    expect(adminLive.body.data).toEqual([expect.objectContaining({ eventId: liveEvent.body.eventId, livemode: true, partnerId: partner.id })]);
    const everyTest = await admin('/webhook-deliveries?livemode=false&limit=100');
    expect(everyTest.status).toBe(200);
    expect((everyTest.body.data as Array<{ livemode: boolean }>).every((d) => d.livemode === false)).toBe(true);
    const everyLive = await admin('/webhook-deliveries?limit=100');
    expect((everyLive.body.data as Array<{ livemode: boolean; eventId: string }>).every((d) => d.livemode === true)).toBe(true);
    expect((everyLive.body.data as Array<{ eventId: string }>).map((d) => d.eventId)).not.toContain(testEvent.body.eventId);

    // A mode is true or false, nothing else: 400 naming the parameter on both surfaces.
    expectInvalidField(await admin('/webhook-deliveries?livemode=maybe'), 'livemode');
    expectInvalidField(await admin(`/partners/${partner.id}/webhook-endpoints?livemode=0`), 'livemode');
    expectInvalidField(await api('/partner/me/webhook-deliveries?livemode=maybe', withToken(partner.token)), 'livemode');
    expectInvalidField(await api('/partner/me/webhook-endpoints', { body: { url: `${receiverUrl}/x`, livemode: 'false' }, ...withToken(partner.token) }), 'livemode');
  });

  it('when a test key credits the test wallet, then wallet.credited reaches only the testWebhookUrl, signed with the test secret, livemode false; a live credit only the webhookUrl', async () => {
    const partner = await testModePartner();
    const issued = await api('/partner/me/test-keys', { method: 'POST', ...withToken(partner.token) });
    expect(issued.status, issued.text).toBe(201);
    const credit = await api('/partner/test/wallet/credit', { body: { amount: 5_000 }, headers: { authorization: `Bearer ${issued.body.key}` } });
    expect(credit.status, credit.text).toBe(201);
    const testRequest = await until(
      () => Promise.resolve(on(partner.testPath).find((r) => r.headers['x-service-event-type'] === 'wallet.credited')),
      'wallet.credited at the test URL',
      20_000,
    );
    const body = JSON.parse(testRequest.body) as { livemode: boolean; data: { ledgerEntry: { id: string }; walletBalance: number } };
    expect(body).toMatchObject({ type: 'wallet.credited', livemode: false, data: { ledgerEntry: { id: credit.body.id }, walletBalance: 5_000 } });
    expect(testRequest.headers['x-service-signature']).toBe(serviceSignature(partner.testSecret, testRequest.body));
    expect(() => new Webhook(partner.testSecret).verify(testRequest.body, testRequest.headers as Record<string, string>)).not.toThrow();

    const liveCredit = await admin(`/partners/${partner.id}/wallet/topups`, { body: { amount: 700, reference: `WIRE-${partner.id}` } });
    expect(liveCredit.status, liveCredit.text).toBe(201);
    const liveRequest = await until(
      () => Promise.resolve(on(partner.livePath).find((r) => r.headers['x-service-event-type'] === 'wallet.credited')),
      'wallet.credited at the live URL',
      20_000,
    );
    expect(JSON.parse(liveRequest.body)).toMatchObject({ livemode: true, data: { walletBalance: 700 } });
    await settledLog('/partner/me/webhook-deliveries?livemode=false', partner.token, 1);
    await settledLog('/partner/me/webhook-deliveries', partner.token, 1);
    expect(on(partner.livePath).map((r) => r.headers['webhook-id'])).toEqual([liveRequest.headers['webhook-id']]);
    expect(on(partner.testPath).map((r) => r.headers['webhook-id'])).toEqual([testRequest.headers['webhook-id']]);
  });

  it('when endpoints are added in each mode, then each list shows its own mode, a test endpoint receives test events only, and every change is e-mailed to the partner', async () => {
    const partner = await testModePartner();
    const created = await api('/partner/me/webhook-endpoints', { body: { url: `${receiverUrl}${partner.testPath}/extra`, livemode: false }, ...withToken(partner.token) });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ livemode: false, url: `${receiverUrl}${partner.testPath}/extra` });
    const byOperator = await admin(`/partners/${partner.id}/webhook-endpoints`, { body: { url: `${receiverUrl}${partner.livePath}/ops` } });
    expect(byOperator.status, byOperator.text).toBe(201);
    expect(byOperator.body.livemode).toBe(true);

    const testList = await api('/partner/me/webhook-endpoints?livemode=false', withToken(partner.token));
    expect(testList.body.data.map((e: { url: string; livemode: boolean }) => [e.url, e.livemode])).toEqual([
      [`${receiverUrl}${partner.testPath}`, false],
      [`${receiverUrl}${partner.testPath}/extra`, false],
    ]);
    const liveList = await api('/partner/me/webhook-endpoints', withToken(partner.token));
    expect(liveList.body.data.map((e: { url: string; livemode: boolean }) => [e.url, e.livemode])).toEqual([
      [`${receiverUrl}${partner.livePath}`, true],
      [`${receiverUrl}${partner.livePath}/ops`, true],
    ]);
    const adminTestList = await admin(`/partners/${partner.id}/webhook-endpoints?livemode=false`);
    expect(adminTestList.body.data.map((e: { id: string }) => e.id)).toEqual(testList.body.data.map((e: { id: string }) => e.id));

    const testEvent = await api('/partner/me/webhook/test?livemode=false', { method: 'POST', ...withToken(partner.token) });
    const extra = await arrived(`${partner.testPath}/extra`, testEvent.body.eventId);
    expect(() => new Webhook(created.body.secret).verify(extra.body, extra.headers as Record<string, string>)).not.toThrow();
    await arrived(partner.testPath, testEvent.body.eventId);
    await settledLog('/partner/me/webhook-deliveries?livemode=false', partner.token, 2);
    expect(withEventId(testEvent.body.eventId).map((r) => r.path).sort()).toEqual([partner.testPath, `${partner.testPath}/extra`].sort());

    // #24: created (partner), changed and rotated (operator), deleted (partner): each one mailed at once.
    const endpointPath = `/partners/${partner.id}/webhook-endpoints/${created.body.id}`;
    expect((await admin(endpointPath, { method: 'PATCH', body: { description: 'renamed' } })).status).toBe(200);
    expect((await admin(`${endpointPath}/rotate-secret`, { body: {} })).status).toBe(200);
    expect((await api(`/partner/me/webhook-endpoints/${created.body.id}`, { method: 'DELETE', ...withToken(partner.token) })).status).toBe(204);
    const added = (await waitForMail(partner.email, 'A webhook endpoint was added', { count: 2 })).find((mail) => mail.text.includes(created.body.id));
    expect(added!.text).toContain(`Endpoint: ${created.body.id}`);
    expect(added!.text).toMatch(/test-mode\s+webhook\s+endpoint/);
    const [changed] = await waitForMail(partner.email, 'A webhook endpoint was changed');
    expect(changed!.text).toMatch(/by\s+an\s+operator/);
    const [rotated] = await waitForMail(partner.email, 'A webhook endpoint’s signing secret was rotated');
    expect(rotated!.text).not.toMatch(/whsec_/);
    const [deleted] = await waitForMail(partner.email, 'A webhook endpoint was deleted');
    expect(deleted!.text).toContain(`URL: ${receiverUrl}${partner.testPath}/extra`);
  });

  it('when the test primary endpoint’s URL is changed and its secret rotated through the endpoints API, then the testWebhookUrl and the test secret change and test events follow them', async () => {
    const partner = await testModePartner();
    const testList = await api('/partner/me/webhook-endpoints?livemode=false', withToken(partner.token));
    const primary = testList.body.data[0] as { id: string; url: string; livemode: boolean };
    expect(primary).toMatchObject({ url: `${receiverUrl}${partner.testPath}`, livemode: false });

    const moved = `${partner.testPath}/moved`;
    const patched = await api(`/partner/me/webhook-endpoints/${primary.id}`, { method: 'PATCH', body: { url: `${receiverUrl}${moved}` }, ...withToken(partner.token) });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({ id: primary.id, url: `${receiverUrl}${moved}`, livemode: false });
    const me = await api('/partner/me', withToken(partner.token));
    expect(me.body).toMatchObject({ testWebhookUrl: `${receiverUrl}${moved}`, webhookUrl: `${receiverUrl}${partner.livePath}` });

    const rotated = await api(`/partner/me/webhook-endpoints/${primary.id}/rotate-secret`, { body: {}, ...withToken(partner.token) });
    expect(rotated.status, rotated.text).toBe(200);
    const newSecret = rotated.body.secret as string;
    expect(newSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(newSecret).not.toBe(partner.testSecret);

    const testEvent = await api('/partner/me/webhook/test?livemode=false', { method: 'POST', ...withToken(partner.token) });
    const request = await arrived(moved, testEvent.body.eventId);
    expect(request.headers['x-service-signature']).toBe(serviceSignature(newSecret, request.body));
    expect(() => new Webhook(newSecret).verify(request.body, request.headers as Record<string, string>)).not.toThrow();
    expect(withEventId(testEvent.body.eventId).map((r) => r.path)).toEqual([moved]);

    // The URL change is mailed by the partners service, the test secret's rotation by the webhooks service: one each.
    await waitForMail(partner.email, 'Your webhook URL was changed', { count: 2 });
    const [rotatedMail] = await waitForMail(partner.email, 'A webhook endpoint’s signing secret was rotated');
    expect(rotatedMail!.text).toContain(`Endpoint: ${primary.id}`);
    expect(rotatedMail!.text).not.toContain(newSecret);
  });

  it('when the partner wipes its test data, then its test log and test endpoints are emptied and the live ones stay', async () => {
    const partner = await testModePartner();
    const extra = await api('/partner/me/webhook-endpoints', { body: { url: `${receiverUrl}${partner.testPath}/wiped`, livemode: false }, ...withToken(partner.token) });
    expect(extra.status).toBe(201);
    const testEvent = await api('/partner/me/webhook/test?livemode=false', { method: 'POST', ...withToken(partner.token) });
    const liveEvent = await api('/partner/me/webhook/test', { method: 'POST', ...withToken(partner.token) });
    await settledLog('/partner/me/webhook-deliveries?livemode=false', partner.token, 2);
    await settledLog('/partner/me/webhook-deliveries', partner.token, 1);

    const wipe = await api('/partner/me/test-data/delete', { method: 'POST', ...withToken(partner.token) });
    expect(wipe.status, wipe.text).toBe(202);
    await until(async () => {
      const log = await api('/partner/me/webhook-deliveries?livemode=false', withToken(partner.token));
      return log.body.data?.length === 0 ? true : undefined;
    }, 'the test log emptied', 30_000);
    const testList = await api('/partner/me/webhook-endpoints?livemode=false', withToken(partner.token));
    // The testWebhookUrl is a partner setting the wipe keeps: its endpoint is listed again (a fresh row); the added one is gone.
    expect(testList.body.data.map((e: { url: string }) => e.url)).toEqual([`${receiverUrl}${partner.testPath}`]);
    const liveLog = await api('/partner/me/webhook-deliveries', withToken(partner.token));
    expect(liveLog.body.data).toEqual([expect.objectContaining({ eventId: liveEvent.body.eventId, livemode: true })]);
    expect(testEvent.status).toBe(202);
  });
});
