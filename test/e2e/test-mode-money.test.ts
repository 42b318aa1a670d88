// Protects test mode's money and orders through the gateway (contract §14): a test key credits and spends its own
// test wallet, its orders are idempotent per mode and invisible to the live key (and the reverse), every view says
// its livemode, operators see test activity only when they ask, and a wipe removes the test money and orders only.
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { admin, api, asKey, call, expectInvalidField, expectProblem, platform, portalToken, until, withToken, type Onboarded } from './support/client.js';
import { finalOrder, fundedPartner, orderBody, partnerEventsInStream, planWithSku } from './support/money.js';

interface TestPartner extends Onboarded {
  testKey: string;
  token: string;
}

/** An approved partner with 5 000 live cents, a portal token and a test key from the portal (§14). */
async function testPartner(): Promise<TestPartner> {
  const partner = await fundedPartner(5_000);
  const token = await portalToken(partner.email, partner.password);
  const issued = await api('/partner/me/test-keys', { method: 'POST', ...withToken(token) });
  if (issued.status !== 201) throw new Error(`test key answered ${issued.status}: ${issued.text}`);
  return { ...partner, token, testKey: issued.body.key as string };
}

const credit = (key: string, body: unknown) => asKey(key, '/partner/test/wallet/credit', { body });
/** A service's series across its processes, as Prometheus sums its pods: the live one and, when it runs, test mode's replica (`<service>-test`). */
const metricsOf = async (service: string) => {
  const processes = [service, `${service}-test`].filter((name) => platform.ports[name]?.health !== undefined);
  return (await Promise.all(processes.map(async (name) => (await call(`http://127.0.0.1:${platform.ports[name]!.health}`, '/metrics')).text))).join('\n');
};
/** The sum of a counter's series of one mode (its `livemode` label, §14). */
const counted = (text: string, name: string, livemode: boolean) =>
  text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) && line.includes(`livemode="${livemode}"`))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
let planId: string;

beforeAll(async () => {
  planId = await planWithSku('E2E-TESTMODE', 1_000);
});

describe('POST /partner/test/wallet/credit', () => {
  it('when a test key credits, then 201 the topup entry (livemode false), the test wallet holds it, wallet.credited goes to the test account, and the live wallet is unchanged', async () => {
    const partner = await testPartner();
    const answer = await credit(partner.testKey, { amount: 2_500 });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body).toMatchObject({ type: 'topup', amount: 2_500, balanceAfter: 2_500, orderId: null, description: 'Test credit', livemode: false });
    expect(answer.body.reference).toMatch(/^test-credit-/);
    const wallet = await asKey(partner.testKey, '/partner/wallet');
    expect(wallet.body).toMatchObject({ balance: 2_500, livemode: false, ledger: [{ id: answer.body.id, livemode: false }] });
    const live = await asKey(partner.apiKey, '/partner/wallet');
    expect(live.body).toMatchObject({ balance: 5_000, livemode: true });
    expect(live.body.ledger.map((entry: { id: string }) => entry.id)).not.toContain(answer.body.id);
    const events = await until(async () => {
      const found = (await partnerEventsInStream(`${partner.id}_test`)).filter((event) => event.type === 'wallet.credited');
      return found.length > 0 ? found : undefined;
    }, 'the test wallet.credited event');
    expect(events[0]!.payload).toMatchObject({ ledgerEntry: { id: answer.body.id, livemode: false }, walletBalance: 2_500 });
    expect((await partnerEventsInStream(partner.id)).filter((event) => event.payload?.ledgerEntry?.id === answer.body.id)).toEqual([]);
  });

  it('when a live key credits, then 403 TEST_MODE_ONLY and no money moves', async () => {
    const partner = await testPartner();
    expectProblem(await credit(partner.apiKey, { amount: 100 }), 403, 'TEST_MODE_ONLY');
    expect((await asKey(partner.apiKey, '/partner/wallet')).body.balance).toBe(5_000);
    expect((await asKey(partner.testKey, '/partner/wallet')).body.balance).toBe(0);
  });

  it.each([
    ['0', { amount: 0 }],
    ['over 100 000 000', { amount: 100_000_001 }],
    ['a fraction', { amount: 1.5 }],
    ['a string', { amount: '100' }],
    ['missing', {}],
  ])('when the amount is %s, then 400 naming amount', async (_case, body) => {
    const partner = await testPartner();
    expectInvalidField(await credit(partner.testKey, body), 'amount');
  });

  it('when the amount is exactly 100 000 000, then it is credited', async () => {
    const partner = await testPartner();
    expect((await credit(partner.testKey, { amount: 100_000_000 })).body).toMatchObject({ balanceAfter: 100_000_000 });
  });

  it('when no key or a bad key is sent, then 401', async () => {
    expectProblem(await api('/partner/test/wallet/credit', { body: { amount: 1 } }), 401, 'UNAUTHENTICATED');
    expectProblem(await credit(`sk_test_${'a'.repeat(12)}_${'b'.repeat(32)}`, { amount: 1 }), 401, 'INVALID_API_KEY');
  });

  it('when the portal\'s button credits, then the partner\'s test wallet is credited whatever mode the portal shows', async () => {
    const partner = await testPartner();
    const answer = await api('/partner/me/test/wallet/credit', { body: { amount: 700 }, ...withToken(partner.token) });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body).toMatchObject({ type: 'topup', amount: 700, livemode: false });
    expect((await api('/partner/me/test/wallet/credit?livemode=false', { body: { amount: 300 }, ...withToken(partner.token) })).body.balanceAfter).toBe(1_000);
    expect((await asKey(partner.testKey, '/partner/wallet')).body.balance).toBe(1_000);
    expect((await api('/partner/me/wallet?livemode=false', withToken(partner.token))).body).toMatchObject({ balance: 1_000, livemode: false });
    expect((await api('/partner/me/wallet', withToken(partner.token))).body).toMatchObject({ balance: 5_000, livemode: true });
  });
});

describe('test orders', () => {
  it('when the test wallet is empty, then 402 and nothing listed; once credited, the order is paid from the test wallet, provisioned and says livemode false', async () => {
    const partner = await testPartner();
    expectProblem(await asKey(partner.testKey, '/partner/orders', { body: orderBody(planId) }), 402, 'INSUFFICIENT_BALANCE');
    expect((await asKey(partner.testKey, '/partner/orders')).body.pagination.total).toBe(0);
    await credit(partner.testKey, { amount: 3_000 });
    const created = await asKey(partner.testKey, '/partner/orders', { body: orderBody(planId) });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ livemode: false, walletBalance: 3_000 - created.body.price });
    const done = await finalOrder(partner.testKey, created.body.id);
    expect(done).toMatchObject({ status: 'provisioned', livemode: false });
    const wallet = (await asKey(partner.testKey, '/partner/wallet')).body;
    expect(wallet.ledger[0]).toMatchObject({ type: 'order_debit', orderId: created.body.id, livemode: false });
    expect((await asKey(partner.apiKey, '/partner/wallet')).body.balance).toBe(5_000);
    const esim = await asKey(partner.testKey, `/partner/esims/${done.iccid}`);
    expect(esim.body).toMatchObject({ livemode: false, bundles: [{ livemode: false }] });
  });

  it('when the same clientRequestId is sent in both modes, then two orders, each seen only by its own mode (404 across)', async () => {
    const partner = await testPartner();
    await credit(partner.testKey, { amount: 3_000 });
    const body = orderBody(planId);
    const testOrder = await asKey(partner.testKey, '/partner/orders', { body });
    const liveOrder = await asKey(partner.apiKey, '/partner/orders', { body });
    expect([testOrder.status, liveOrder.status]).toEqual([201, 201]);
    expect(testOrder.body.id).not.toBe(liveOrder.body.id);
    expect([testOrder.body.livemode, liveOrder.body.livemode]).toEqual([false, true]);
    const replay = await asKey(partner.testKey, '/partner/orders', { body });
    expect([replay.status, replay.headers['idempotent-replayed'], replay.body.id]).toEqual([200, 'true', testOrder.body.id]);

    expectProblem(await asKey(partner.apiKey, `/partner/orders/${testOrder.body.id}`), 404, 'ORDER_NOT_FOUND');
    expectProblem(await asKey(partner.testKey, `/partner/orders/${liveOrder.body.id}`), 404, 'ORDER_NOT_FOUND');
    expect((await asKey(partner.testKey, '/partner/orders')).body.data.map((o: { id: string }) => o.id)).toEqual([testOrder.body.id]);
    expect((await asKey(partner.apiKey, '/partner/orders')).body.data.map((o: { id: string }) => o.id)).toEqual([liveOrder.body.id]);
  });

  it('when a test key orders a group and a quote, then both use the test wallet, and the group\'s esims.csv is the test key\'s alone', async () => {
    const partner = await testPartner();
    await credit(partner.testKey, { amount: 10_000 });
    const quote = await asKey(partner.testKey, '/partner/orders/quote', { body: { ...orderBody(planId), clientRequestId: undefined, quantity: 2 } });
    expect(quote.status, quote.text).toBe(200);
    expect(quote.body).toMatchObject({ quantity: 2, walletBalance: 10_000, sufficientBalance: true });
    const group = await asKey(partner.testKey, '/partner/orders', { body: { ...orderBody(planId), quantity: 2 } });
    expect(group.status, group.text).toBe(201);
    expect(group.body).toMatchObject({ quantity: 2, livemode: false, walletBalance: 10_000 - group.body.price });
    const done = await finalOrder(partner.testKey, group.body.id);
    expect(done).toMatchObject({ status: 'provisioned', livemode: false });
    const csv = await asKey(partner.testKey, `/partner/orders/${group.body.id}/esims.csv`);
    expect(csv.status).toBe(200);
    expect(csv.text.trim().split('\n')).toHaveLength(3);
    expectProblem(await asKey(partner.apiKey, `/partner/orders/${group.body.id}/esims.csv`), 404, 'ORDER_NOT_FOUND');
  });
});

describe('operators', () => {
  it('when operators list orders, eSIMs and a wallet, then live only by default, test only with livemode=false, each with the partner id and its livemode', async () => {
    const partner = await testPartner();
    await credit(partner.testKey, { amount: 3_000 });
    const testOrder = await finalOrder(partner.testKey, (await asKey(partner.testKey, '/partner/orders', { body: orderBody(planId) })).body.id);
    const liveOrder = await finalOrder(partner.apiKey, (await asKey(partner.apiKey, '/partner/orders', { body: orderBody(planId) })).body.id);

    const liveList = await admin(`/orders?partnerId=${partner.id}`);
    expect(liveList.body.data.map((o: { id: string }) => o.id)).toEqual([liveOrder.id]);
    expect(liveList.body.data[0]).toMatchObject({ partnerId: partner.id, livemode: true });
    const testList = await admin(`/orders?partnerId=${partner.id}&livemode=false`);
    expect(testList.body.data.map((o: { id: string }) => o.id)).toEqual([testOrder.id]);
    expect(testList.body.data[0]).toMatchObject({ partnerId: partner.id, livemode: false });
    const everyone = await admin('/orders?limit=100');
    expect(everyone.body.data.every((o: { livemode: boolean }) => o.livemode)).toBe(true);
    expect((await admin('/orders?livemode=false&limit=100')).body.data.every((o: { livemode: boolean }) => !o.livemode)).toBe(true);
    expect(await admin(`/orders/${testOrder.id}`)).toMatchObject({ status: 200, body: { partnerId: partner.id, livemode: false } });

    expect((await admin(`/esims?partnerId=${partner.id}`)).body.data.map((e: { iccid: string }) => e.iccid)).toEqual([liveOrder.iccid]);
    const testEsims = await admin(`/esims?partnerId=${partner.id}&livemode=false`);
    expect(testEsims.body.data).toMatchObject([{ iccid: testOrder.iccid, partnerId: partner.id, livemode: false }]);

    expect((await admin(`/partners/${partner.id}/wallet`)).body).toMatchObject({ balance: 5_000 - liveOrder.price, livemode: true });
    expect((await admin(`/partners/${partner.id}/wallet?livemode=false`)).body).toMatchObject({ balance: 3_000 - testOrder.price, livemode: false });
    expectInvalidField(await admin('/orders?livemode=maybe'), 'livemode');
    expectInvalidField(await admin('/esims?livemode=0'), 'livemode');
  });
});

describe('POST /partner/me/test-data/delete', () => {
  it('when a partner wipes its test data, then the test wallet and orders are gone and the live ones are untouched', async () => {
    const partner = await testPartner();
    await credit(partner.testKey, { amount: 3_000 });
    const testOrder = await finalOrder(partner.testKey, (await asKey(partner.testKey, '/partner/orders', { body: orderBody(planId) })).body.id);
    const liveOrder = await finalOrder(partner.apiKey, (await asKey(partner.apiKey, '/partner/orders', { body: orderBody(planId, `live-${randomBytes(4).toString('hex')}`) })).body.id);
    const liveWallet = (await asKey(partner.apiKey, '/partner/wallet')).body;

    const wipe = await api('/partner/me/test-data/delete', { method: 'POST', ...withToken(partner.token) });
    expect(wipe.status, wipe.text).toBe(202);
    await until(async () => {
      const wallet = (await asKey(partner.testKey, '/partner/wallet')).body;
      const orders = (await asKey(partner.testKey, '/partner/orders')).body;
      return wallet.balance === 0 && wallet.ledger.length === 0 && orders.pagination.total === 0 ? true : undefined;
    }, 'the test wallet and orders deleted', 30_000);
    expectProblem(await asKey(partner.testKey, `/partner/orders/${testOrder.id}`), 404, 'ORDER_NOT_FOUND');
    expectProblem(await asKey(partner.testKey, `/partner/esims/${testOrder.iccid}`), 404, 'ESIM_NOT_FOUND');

    expect((await asKey(partner.apiKey, '/partner/wallet')).body).toEqual(liveWallet);
    expect((await asKey(partner.apiKey, `/partner/orders/${liveOrder.id}`)).body).toMatchObject({ id: liveOrder.id, status: 'provisioned' });
    // The test account starts over.
    expect((await credit(partner.testKey, { amount: 50 })).body).toMatchObject({ balanceAfter: 50 });
  });
});

describe('metrics', () => {
  it('when a test order is paid and provisioned, then the counters move under livemode="false" and no live series moves', async () => {
    const partner = await testPartner();
    const snapshot = async () => {
      const [orders, wallet] = [await metricsOf('orders'), await metricsOf('wallet')];
      return {
        test: [counted(orders, 'orders_created_total', false), counted(orders, 'orders_provisioned_total', false), counted(wallet, 'wallet_debits_total', false)],
        live: [counted(orders, 'orders_created_total', true), counted(orders, 'orders_provisioned_total', true), counted(wallet, 'wallet_debits_total', true)],
        testCredits: wallet.split('\n').filter((line) => line.startsWith('wallet_test_credits_total')).reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0),
        topUps: wallet.split('\n').filter((line) => line.startsWith('wallet_topups_total')).reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0),
      };
    };
    const before = await snapshot();
    await credit(partner.testKey, { amount: 3_000 });
    await finalOrder(partner.testKey, (await asKey(partner.testKey, '/partner/orders', { body: orderBody(planId) })).body.id);
    const after = await snapshot();
    expect(after.test).toEqual(before.test.map((n) => n + 1));
    expect(after.live).toEqual(before.live);
    expect([after.testCredits, after.topUps]).toEqual([before.testCredits + 1, before.topUps]);
  });
});
