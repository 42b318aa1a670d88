// Protects test mode's own lane (#26, contract §14 "nothing a test key sends can … slow live data"): as `npm start` runs
// it, a test order is taken, paid, provisioned, captured and announced by test mode's own replicas (EVENT_LANES=test)
// while the live processes of wallet, orders, provisioning and webhooks are frozen, and a live order by the live ones
// while the test replicas are frozen. Frozen with SIGSTOP: a process that takes any part of the other mode's work
// stalls it and the test fails.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, control, platform, portalToken, until, withKey, withToken } from './support/client.js';
import { planFor } from './support/esims.js';
import { finalOrder, fundedPartner, orderBody } from './support/money.js';
import { startReceiver, type WebhookReceiver } from './support/receiver.js';

const sagaServices = ['wallet', 'orders', 'provisioning', 'webhooks'];
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver?.close());

/** What arrived, with each body's event type and order id. */
const received = () =>
  receiver.received.map((r) => {
    const body = JSON.parse(r.body) as { type: string; data?: { order?: { id?: string } } };
    return { path: r.path, type: body.type, orderId: body.data?.order?.id };
  });

async function freeze(names: string[], signal: 'SIGSTOP' | 'SIGCONT') {
  for (const name of names) {
    const answer = await control(`/services/${name}/signal?signal=${signal}`, 'POST');
    expect(answer.status, `${signal} ${name}: ${JSON.stringify(answer.body)}`).toBe(200);
  }
}

/** While `frozen` are stopped: an order with `key`, to its end, and its provision.provisioned webhook at `path`. */
async function orderWhileFrozen(frozen: string[], key: string, planId: string, path: string) {
  await freeze(frozen, 'SIGSTOP');
  try {
    const placed = await api('/partner/orders', { body: orderBody(planId), ...withKey(key) });
    expect(placed.status, placed.text).toBe(201);
    const order = await finalOrder(key, placed.body.id as string, 30_000);
    const hook = await until(async () => received().find((r) => r.path === path && r.orderId === placed.body.id && r.type === 'provision.provisioned'), `provision.provisioned at ${path}`, 30_000);
    return { order, hook };
  } finally {
    await freeze(frozen, 'SIGCONT');
  }
}

describe("test mode's own lane", () => {
  it('when the live saga processes are frozen, then a test order still completes with its webhook; when the test replicas are frozen, a live one does', async () => {
    expect(Object.keys(platform.ports), 'the e2e platform runs test-mode replicas, as npm start does').toEqual(expect.arrayContaining(sagaServices.map((s) => `${s}-test`)));
    const partner = await fundedPartner(100_000);
    const token = await portalToken(partner.email, partner.password);
    const patched = await api('/partner/me', { method: 'PATCH', body: { webhookUrl: `${receiver.url}/live`, testWebhookUrl: `${receiver.url}/test` }, ...withToken(token) });
    expect(patched.status, patched.text).toBe(200);
    // Test events are signed with the test secret; until there is one, the test URL is no endpoint.
    expect((await api('/partner/me/test-webhook-secret', { method: 'POST', ...withToken(token) })).status).toBeLessThan(300);
    const issued = await api('/partner/me/test-keys', { method: 'POST', body: {}, ...withToken(token) });
    expect(issued.status, issued.text).toBe(201);
    const testKey = issued.body.key as string;
    expect((await api('/partner/test/wallet/credit', { body: { amount: 100_000 }, ...withKey(testKey) })).status).toBe(201);
    const planId = await planFor(['FR'], 1000, 700);

    const test = await orderWhileFrozen(sagaServices, testKey, planId, '/test');
    expect(test.order).toMatchObject({ status: 'provisioned', livemode: false });
    const live = await orderWhileFrozen(sagaServices.map((s) => `${s}-test`), partner.apiKey, planId, '/live');
    expect(live.order).toMatchObject({ status: 'provisioned', livemode: true });

    // Each webhook went to its own mode's URL only; each wallet paid once.
    expect(received().filter((r) => r.orderId === test.order.id).every((r) => r.path === '/test')).toBe(true);
    expect(received().filter((r) => r.orderId === live.order.id).every((r) => r.path === '/live')).toBe(true);
    const testWallet = await api('/partner/wallet', withKey(testKey));
    expect(testWallet.body.balance).toBe(100_000 - (test.order.price as number));
    const liveWallet = await api('/partner/wallet', withKey(partner.apiKey));
    expect(liveWallet.body.balance).toBe(100_000 - (live.order.price as number));
  }, 150_000);
});
