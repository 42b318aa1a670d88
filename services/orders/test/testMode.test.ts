// Protects test mode in the orders service (contract §14): every partner-data RPC takes a test account (`ptn_X_test`)
// and keeps its orders, group orders and eSIMs apart from the live account's (idempotency per mode, 404 across
// modes), events say livemode false, operators' lists show one mode (live by default), the reconciliation skips test
// orders, and a test-data deletion removes every row of the test account while the live rows stay.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountIdOf, newId } from '@esim/ids';
import { ordersV1 } from '@esim/proto';
import type { Logger } from '@esim/telemetry';
import { deleteTestAccount } from '../src/domain/deleteTestAccount.js';
import { notification, provisionedOrder, T } from './support/esims.js';
import { createTestEnv, esimFor, eventually, orderRequest, type OrdersClient, type TestEnv } from './support/testEnv.js';

const S = ordersV1.OrderStatus;
let env: TestEnv;
let client: OrdersClient;
let france: { id: string; name: string };

beforeAll(async () => {
  env = await createTestEnv();
  ({ client } = await env.start());
  france = await env.plan('FR');
});
afterAll(() => env?.cleanup());

/** A partner's two accounts, each with money in the fake wallet. */
function accounts(): { live: string; test: string } {
  const live = env.partner(100_000);
  const test = accountIdOf(live, false);
  env.wallet.setBalance(test, 50_000);
  return { live, test };
}

const silent = { info: () => {}, warn: () => {}, error: () => {} } as unknown as Logger;

async function countsOf(accountId: string) {
  const one = async (sql: string) => (await env.query<{ n: number }>(sql, [accountId]))[0]!.n;
  return {
    orders: await one('SELECT count(*)::int AS n FROM orders.orders WHERE partner_id = $1'),
    esims: await one('SELECT count(*)::int AS n FROM orders.esims WHERE partner_id = $1'),
    bundles: await one('SELECT count(*)::int AS n FROM orders.bundles b JOIN orders.esims e USING (iccid) WHERE e.partner_id = $1'),
    notifications: await one('SELECT count(*)::int AS n FROM orders.supplier_notifications n JOIN orders.esims e USING (iccid) WHERE e.partner_id = $1'),
  };
}

/** Every kind of row a test account can have: an order with an eSIM, a top-up bundle, a supplier notification, a group order. */
async function fullAccount(accountId: string): Promise<{ first: ordersV1.Order; group: string }> {
  const first = await provisionedOrder(env, client, { partnerId: accountId, planId: france.id });
  await provisionedOrder(env, client, { partnerId: accountId, planId: france.id, iccid: first.iccid! });
  await client.recordSupplierNotification(notification(T.ESIM_INSTALLED, first.iccid!));
  const { order: group } = await client.createOrder({ ...orderRequest(accountId, france.id), quantity: 2 });
  return { first, group: group!.id };
}

describe('a test account in the partner RPCs', () => {
  it('when a test account orders, tops up, quotes, reads and suspends, then each works, and its events say livemode false', async () => {
    const { test } = accounts();
    const quote = await client.quoteOrder({ partnerId: test, tier: 'standard', planId: france.id, email: 'a@example.com', phoneNumber: '+33612345678', quantity: 2 });
    expect(quote).toMatchObject({ quantity: 2, walletBalance: 50_000n, sufficientBalance: true });
    const first = await provisionedOrder(env, client, { partnerId: test, planId: france.id });
    expect(first).toMatchObject({ partnerId: test, status: S.PROVISIONED });
    const topUp = await provisionedOrder(env, client, { partnerId: test, planId: france.id, iccid: first.iccid! });
    expect(topUp).toMatchObject({ kind: ordersV1.OrderKind.TOPUP, iccid: first.iccid });
    expect((await client.listOrders({ partnerId: test, page: { page: 1, limit: 10 } })).total).toBe(2);
    expect((await client.listEsims({ partnerId: test, page: { page: 1, limit: 10 } })).esims.map((e) => e.iccid)).toEqual([first.iccid]);
    expect(await client.setEsimSuspended({ partnerId: test, iccid: first.iccid!, suspended: true })).toMatchObject({ suspended: true });

    const provisioned = (await env.outboxFor(first.id)).find((event) => (event.payload.data as { type?: string }).type === 'provision.provisioned')!;
    expect((provisioned.payload.data as { payload: { order: Record<string, unknown> } }).payload.order).toMatchObject({ id: first.id, livemode: false });
    const suspended = (await env.outboxFor(first.id)).find((event) => (event.payload.data as { type?: string }).type === 'esim.suspended')!;
    const esim = (suspended.payload.data as { payload: { esim: { livemode: boolean; bundles: Array<{ livemode: boolean }> } } }).payload.esim;
    expect(esim.livemode).toBe(false);
    expect(esim.bundles.map((bundle) => bundle.livemode)).toEqual([false, false]);
  });

  it('when the same clientRequestId is used in both modes, then they are two orders, each paid from its own wallet', async () => {
    const { live, test } = accounts();
    const body = orderRequest(live, france.id);
    const liveOrder = (await client.createOrder(body)).order!;
    const testOrder = (await client.createOrder({ ...body, partnerId: test })).order!;
    expect(testOrder.id).not.toBe(liveOrder.id);
    expect(env.wallet.balanceOf(live)).toBe(100_000 - Number(liveOrder.price));
    expect(env.wallet.balanceOf(test)).toBe(50_000 - Number(testOrder.price));
    // A replay in each mode answers that mode's order.
    expect((await client.createOrder({ ...body, partnerId: test })).order!.id).toBe(testOrder.id);
    expect((await client.createOrder(body)).order!.id).toBe(liveOrder.id);
  });

  it('when one mode names the other mode\'s order or eSIM, then it is not found', async () => {
    const { live, test } = accounts();
    const testOrder = await provisionedOrder(env, client, { partnerId: test, planId: france.id });
    const liveOrder = await provisionedOrder(env, client, { partnerId: live, planId: france.id });
    await expect(client.getOrder({ id: testOrder.id, partnerId: live })).rejects.toMatchObject({ code: 'ORDER_NOT_FOUND' });
    await expect(client.getOrder({ id: liveOrder.id, partnerId: test })).rejects.toMatchObject({ code: 'ORDER_NOT_FOUND' });
    await expect(client.getEsim({ iccid: testOrder.iccid!, partnerId: live })).rejects.toMatchObject({ code: 'ESIM_NOT_FOUND' });
    await expect(client.cancelOrder({ orderId: liveOrder.id, partnerId: test })).rejects.toMatchObject({ code: 'ORDER_NOT_FOUND' });
    await expect(client.createOrder(orderRequest(live, france.id, { iccid: testOrder.iccid! }))).rejects.toMatchObject({ code: 'ESIM_NOT_FOUND' });
  });

  it('when a test account cancels its order, then the test wallet is refunded and order.cancelled says livemode false; the live wallet is untouched', async () => {
    const { live, test } = accounts();
    const order = await provisionedOrder(env, client, { partnerId: test, planId: france.id });
    const before = { live: env.wallet.balanceOf(live), test: env.wallet.balanceOf(test) };
    const answer = await client.cancelOrder({ partnerId: test, orderId: order.id });
    expect(answer).toMatchObject({ alreadyCancelled: false, refundedAmount: order.price, order: { status: S.CANCELLED } });
    expect(env.wallet.balanceOf(test)).toBe(before.test + Number(order.price));
    expect(env.wallet.balanceOf(live)).toBe(before.live);
    const cancelled = (await env.outboxFor(order.id)).find((event) => (event.payload.data as { type?: string }).type === 'order.cancelled')!;
    expect(cancelled.payload.data).toMatchObject({ partnerId: test, payload: { order: { id: order.id, status: 'cancelled', livemode: false } } });
  });

  it('when a test account is empty, then its order is INSUFFICIENT_BALANCE even though the live wallet has money', async () => {
    const live = env.partner(100_000);
    await expect(client.createOrder(orderRequest(accountIdOf(live, false), france.id))).rejects.toMatchObject({ code: 'INSUFFICIENT_BALANCE' });
  });
});

describe('operators\' lists', () => {
  it('when every partner is listed, then live orders and eSIMs only by default, test ones only with livemode false', async () => {
    const { live, test } = accounts();
    const testOrder = await provisionedOrder(env, client, { partnerId: test, planId: france.id });
    const liveOrder = await provisionedOrder(env, client, { partnerId: live, planId: france.id });
    const all = { partnerId: '', page: { page: 1, limit: 100 } };
    const ids = async (request: Parameters<OrdersClient['listOrders']>[0]) => (await client.listOrders(request)).orders.map((order) => order.id);
    const iccids = async (request: Parameters<OrdersClient['listEsims']>[0]) => (await client.listEsims(request)).esims.map((esim) => esim.iccid);

    expect(await ids(all)).toContain(liveOrder.id);
    expect(await ids(all)).not.toContain(testOrder.id);
    expect(await ids({ ...all, livemode: true })).not.toContain(testOrder.id);
    expect(await ids({ ...all, livemode: false })).toContain(testOrder.id);
    expect(await ids({ ...all, livemode: false })).not.toContain(liveOrder.id);
    expect((await client.listOrders({ ...all, livemode: false })).orders.every((order) => order.partnerId.endsWith('_test'))).toBe(true);

    expect(await iccids(all)).toContain(liveOrder.iccid);
    expect(await iccids(all)).not.toContain(testOrder.iccid);
    expect(await iccids({ ...all, livemode: false })).toContain(testOrder.iccid);
    expect(await iccids({ ...all, livemode: false })).not.toContain(liveOrder.iccid);
  });

  it('when the reconciliation runs, then a paid test order without a debit is not a finding: test money is never reconciled', async () => {
    const { test } = accounts();
    const order = await provisionedOrder(env, client, { partnerId: test, planId: france.id });
    // Behind the wallet's back: the test order's debit disappears (as a wipe of the wallet alone would leave it).
    env.wallet.reservations.delete(order.id);
    const run = await client.runReconciliation({ trigger: 'operator' }, { deadlineMs: 30_000 });
    expect(run.findings.filter((finding) => finding.partnerId === test)).toEqual([]);
  });
});

describe('partners.test_data.delete_requested', () => {
  it('when a partner wipes its test data, then every test row goes (orders, group units, eSIMs, bundles, notifications), a redelivery changes nothing, and live rows stay', async () => {
    const { live, test } = accounts();
    const testRows = await fullAccount(test);
    const liveRows = await fullAccount(live);
    const liveBefore = await countsOf(live);
    expect(await countsOf(test)).toEqual({ orders: 5, esims: 1, bundles: 2, notifications: 1 });

    const eventId = await env.publish('partners.test_data.delete_requested', { accountId: test, requestedAt: new Date().toISOString() });
    const processed = (id: string) => env.query('SELECT 1 FROM orders.processed_events WHERE consumer = $1 AND event_id = $2', ['orders_test_data_deleted', id]);
    expect(await eventually(async () => (await processed(eventId)).length === 1, 10_000)).toBe(true);
    expect(await countsOf(test)).toEqual({ orders: 0, esims: 0, bundles: 0, notifications: 0 });
    await expect(client.getOrder({ id: testRows.first.id, partnerId: test })).rejects.toMatchObject({ code: 'ORDER_NOT_FOUND' });
    expect((await client.listOrders({ partnerId: test, page: { page: 1, limit: 10 } })).total).toBe(0);

    await env.publish('partners.test_data.delete_requested', { accountId: test, requestedAt: new Date().toISOString() }, { id: eventId, msgId: newId('evt') });
    const again = await env.publish('partners.test_data.delete_requested', { accountId: test, requestedAt: new Date().toISOString() });
    expect(await eventually(async () => (await processed(again)).length === 1, 10_000)).toBe(true);

    expect(await countsOf(live)).toEqual(liveBefore);
    expect((await client.getOrder({ id: liveRows.first.id, partnerId: live })).status).toBe(S.PROVISIONED);
    expect((await client.getOrder({ id: liveRows.group, partnerId: live })).quantity).toBe(2);
    // The test account orders again from scratch.
    await provisionedOrder(env, client, { partnerId: test, planId: france.id });
  });

  it('when the deletion names a live account, then it is refused and nothing is deleted', async () => {
    const { live } = accounts();
    await fullAccount(live);
    const before = await countsOf(live);
    const db = await env.pool.connect();
    try {
      expect(await deleteTestAccount(db, silent, live)).toBe('refused');
    } finally {
      db.release();
    }
    expect(await countsOf(live)).toEqual(before);
  });

  it('when late provisioning and wallet events name a test order wiped in flight, then each is acknowledged as expected (no dead letter) and the consumers go on', async () => {
    const { test } = accounts();
    const { order } = await client.createOrder(orderRequest(test, france.id));
    const wipe = await env.publish('partners.test_data.delete_requested', { accountId: test, requestedAt: new Date().toISOString() });
    const processed = async (consumer: string, id: string) =>
      eventually(async () => (await env.query('SELECT 1 FROM orders.processed_events WHERE consumer = $1 AND event_id = $2', [consumer, id])).length === 1, 10_000);
    expect(await processed('orders_test_data_deleted', wipe)).toBe(true);
    expect(await env.query('SELECT order_id FROM orders.wiped_test_orders WHERE order_id = $1', [order!.id])).toHaveLength(1);

    const succeeded = await env.publish('provisioning.succeeded', esimFor(order!.id));
    const failed = await env.publish('provisioning.failed', { orderId: order!.id, reason: 'late' });
    const refunded = await env.publish('wallet.order.refunded', { orderId: order!.id, partnerId: test, amount: 100, ledgerEntryId: newId('led'), balanceAfter: 100 });
    // Committed as processed: handled, not failed for good (a dead letter is never marked processed).
    expect(await processed('orders_provisioning_succeeded', succeeded)).toBe(true);
    expect(await processed('orders_provisioning_failed', failed)).toBe(true);
    expect(await processed('orders_wallet_refunded', refunded)).toBe(true);
    expect(await countsOf(test)).toEqual({ orders: 0, esims: 0, bundles: 0, notifications: 0 });
    await provisionedOrder(env, client, { partnerId: env.partner(100_000), planId: france.id });
  });
});
