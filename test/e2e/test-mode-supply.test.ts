// Protects test mode's supply end to end (§14) through the gateway with a real test key: test orders are provisioned by the test-mode simulator (even with the live upstreams broken: provisioning is swapped for a copy whose live upstreams are a closed port), magic e-mails steer them, and the four test helpers answer the eSIM view in its new state while the test webhook receiver gets the same events as live.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, control, expectProblem, portalToken, until, withKey, withToken, type Onboarded } from './support/client.js';
import { planFor, settled } from './support/esims.js';
import { fundedPartner, orderBody, partnerEventsInStream } from './support/money.js';

const received: Array<{ type: string; body: any }> = [];
let receiver: Server;
let partner: Onboarded;
let token: string;
let testKey: string;
let testAccount: string;
let plan: string;
/** eSIMs the helpers drove through their whole life. */
const helped: string[] = [];

/** True when this run points the live upstreams away from the simulator (SMDP_ES2_URL/CONNECTIVITY_URL set, e.g. to an unreachable port). */
const liveUpstreamsElsewhere = Boolean(process.env.SMDP_ES2_URL && process.env.CONNECTIVITY_URL);

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ type: String(req.headers['x-service-event-type']), body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  partner = await fundedPartner(100_000);
  testAccount = `${partner.id}_test`;
  token = await portalToken(partner.email, partner.password);
  const issued = await api('/partner/me/test-keys', { method: 'POST', body: {}, ...withToken(token) });
  expect(issued.status, issued.text).toBe(201);
  testKey = issued.body.key;
  const hooked = await api('/partner/me', { method: 'PATCH', body: { testWebhookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/test-hooks` }, ...withToken(token) });
  expect(hooked.status, hooked.text).toBe(200);
  // Test events are signed with the test signing secret: the partner takes one, as the portal does.
  const secret = await api('/partner/me/test-webhook-secret', { method: 'POST', ...withToken(token) });
  expect(secret.status, secret.text).toBe(200);
  const credited = await api('/partner/test/wallet/credit', { body: { amount: 1_000_000 }, ...withKey(testKey) });
  expect(credited.status, credited.text).toBe(201);
  plan = await planFor(['FR'], 1000, 700);
}, 120_000);

afterAll(async () => {
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

async function testOrder(email = 'traveller@example.com'): Promise<any> {
  const placed = await api('/partner/orders', { body: { ...orderBody(plan), email }, ...withKey(testKey) });
  expect(placed.status, placed.text).toBe(201);
  return settled(testKey, placed.body.id as string, 45_000);
}

const helper = (iccid: string, action: string, body?: unknown) => api(`/partner/test/esims/${iccid}/${action}`, { method: 'POST', ...(body === undefined ? {} : { body }), ...withKey(testKey) });
const receivedFor = (type: string, iccid: string) => received.filter((hook) => hook.type === type && hook.body?.data?.esim?.iccid === iccid);

describe('test orders are supplied by the test-mode simulator', () => {
  it('when a test key orders, then the order is provisioned with livemode false', async () => {
    const order = await testOrder();
    expect(order).toMatchObject({ status: 'provisioned', livemode: false });
    expect(order.esim.iccid).toMatch(/^\d{18,22}$/);
  });

  it('when the live upstreams are unreachable, then a test order is still provisioned and a live order is not', async () => {
    // Provisioning swapped for a copy of itself whose live upstreams point at a closed port (a run may already do that for the whole platform).
    let swapped: number | undefined;
    if (!liveUpstreamsElsewhere) {
      expect((await control('/services/provisioning/kill?signal=SIGTERM', 'POST')).status).toBe(200);
      const replica = await control<{ replica: number }>('/replicas/provisioning?SMDP_ES2_URL=http://127.0.0.1:9&CONNECTIVITY_URL=http://127.0.0.1:9', 'POST');
      expect(replica.status, JSON.stringify(replica.body)).toBe(200);
      swapped = replica.body.replica;
    }
    try {
      const live = await api('/partner/orders', { body: orderBody(plan), ...withKey(partner.apiKey) });
      expect(live.status, live.text).toBe(201);
      const order = await testOrder();
      expect(order.status).toBe('provisioned');
      const stillLive = await api(`/partner/orders/${live.body.id}`, withKey(partner.apiKey));
      expect(stillLive.body).toMatchObject({ status: 'processing', esim: null });
    } finally {
      if (swapped !== undefined) {
        await control(`/replicas/${swapped}/kill?signal=SIGTERM`, 'POST');
        await control('/services/provisioning/start', 'POST');
        // Callers' channels to provisioning reconnect within their 2 s backoff cap (packages/grpc adapter): let them, so the next test meets a whole platform.
        await new Promise((r) => setTimeout(r, 3_000));
      }
    }
  }, 120_000);

  it('when the customer is provision.fail@example.com, then the test order fails, is refunded and provision.failed is sent', async () => {
    const order = await testOrder('provision.fail@example.com');
    expect(order.status).toBe('failed');
    await until(async () => (await partnerEventsInStream(testAccount)).find((e) => e.type === 'provision.failed' && e.orderId === order.id), 'provision.failed');
    await until(async () => {
      const ledger = await api('/partner/wallet/ledger?limit=100', withKey(testKey));
      return ledger.body.data?.find((entry: any) => entry.type === 'refund' && entry.orderId === order.id);
    }, 'the refund entry');
  });

  it('when the customer is provision.flaky@example.com, then the test order is retried and provisioned', async () => {
    const order = await testOrder('provision.flaky@example.com');
    expect(order.status).toBe('provisioned');
  });
});

describe('test helpers', () => {
  it('when a test eSIM is installed, used, expired and deleted through the helpers, then each answers 200 with the new state and the partner events follow in order', async () => {
    const order = await testOrder();
    const iccid = order.esim.iccid as string;

    const installed = await helper(iccid, 'install');
    expect(installed.status, installed.text).toBe(200);
    expect(installed.body).toMatchObject({ iccid, status: 'installed', livemode: false });

    const used = await helper(iccid, 'usage', { addMb: 850 });
    expect(used.status, used.text).toBe(200);
    expect(used.body.usage).toMatchObject({ dataTotalMb: 1000, dataUsedMb: 850, dataRemainingMb: 150 });
    expect(used.body.bundles[0]).toMatchObject({ orderId: order.id, dataUsedMb: 850, status: 'active' });

    const expired = await helper(iccid, 'expire');
    expect(expired.status, expired.text).toBe(200);
    expect(expired.body.bundles[0]).toMatchObject({ orderId: order.id, status: 'expired' });

    const deleted = await helper(iccid, 'delete');
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body.status).toBe('deleted');

    // The partner events, as the webhooks service reads them, each once, in the order things happened.
    const lifecycle = ['esim.installed', 'esim.usage_threshold', 'esim.bundle_expired', 'esim.deleted'];
    const events = await until(async () => {
      const all = (await partnerEventsInStream(testAccount)).filter((e) => lifecycle.includes(e.type) && e.payload.esim?.iccid === iccid);
      return all.some((e) => e.type === 'esim.deleted') ? all : undefined;
    }, 'the eSIM events in the partner event stream');
    expect(events.map((e) => e.type)).toEqual(['esim.installed', 'esim.usage_threshold', 'esim.bundle_expired', 'esim.deleted']);
    expect(events[1]!.payload).toMatchObject({ threshold: 80 });
    helped.push(iccid);
  });

  it('when the helpers acted, then the test webhook receiver gets esim.installed, esim.usage_threshold, esim.bundle_expired and esim.deleted', async () => {
    const iccid = helped[0];
    expect(iccid, 'the helpers test ran first').toBeDefined();
    for (const type of ['esim.installed', 'esim.usage_threshold', 'esim.bundle_expired', 'esim.deleted']) {
      await until(async () => receivedFor(type, iccid!)[0], `${type} at the test receiver`, 20_000);
    }
    expect(receivedFor('esim.installed', iccid!)[0]!.body.livemode).toBe(false);
  });

  it('when the portal twin installs a test eSIM, then it acts on the test account and answers its view', async () => {
    const order = await testOrder();
    const answer = await api(`/partner/me/test/esims/${order.esim.iccid}/install`, { method: 'POST', ...withToken(token) });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({ iccid: order.esim.iccid, status: 'installed' });
  });

  it('when a live key calls a helper, then 403 TEST_MODE_ONLY, even with a malformed ICCID or body', async () => {
    for (const action of ['install', 'usage', 'expire', 'delete']) {
      expectProblem(await api(`/partner/test/esims/8900000000000000000/${action}`, { method: 'POST', ...withKey(partner.apiKey) }), 403, 'TEST_MODE_ONLY');
    }
    expectProblem(await api('/partner/test/esims/not-an-iccid/usage', { method: 'POST', body: { addMb: -1 }, ...withKey(partner.apiKey) }), 403, 'TEST_MODE_ONLY');
  });

  it('when the ICCID is malformed, unknown or a live eSIM, then 404 ESIM_NOT_FOUND', async () => {
    expectProblem(await helper('not-an-iccid', 'install'), 404, 'ESIM_NOT_FOUND');
    expectProblem(await helper('8933000000000000001', 'install'), 404, 'ESIM_NOT_FOUND');
    const liveIccid = await liveEsimIccid();
    if (liveIccid) expectProblem(await helper(liveIccid, 'install'), 404, 'ESIM_NOT_FOUND');
  });

  it('when usage is not a positive integer, then 400 naming addMb', async () => {
    const order = await testOrder();
    for (const body of [{ addMb: 0 }, { addMb: 1.5 }, { addMb: '10' }, {}]) {
      const answer = await helper(order.esim.iccid, 'usage', body);
      expectProblem(answer, 400, 'VALIDATION_ERROR');
      expect(JSON.stringify(answer.body.errors)).toContain('addMb');
    }
  });
});

/** A live eSIM of this partner, when the live upstream can provision one in this run. */
async function liveEsimIccid(): Promise<string | undefined> {
  if (liveUpstreamsElsewhere) return undefined;
  const placed = await api('/partner/orders', { body: orderBody(plan), ...withKey(partner.apiKey) });
  const order = await settled(partner.apiKey, placed.body.id as string);
  return order.esim?.iccid;
}
