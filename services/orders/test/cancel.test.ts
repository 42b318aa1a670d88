import { devTlsFiles } from '@esim/grpc';
// Protects cancellation (contract §13): an unused provisioned order is revoked, refunded once and announced once; each rule refuses with ORDER_NOT_CANCELLABLE and nothing changed; a supplier outage is 503 with nothing changed; a crash between revoke and refund is completed by the sweeper.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ordersV1 } from '@esim/proto';
import { createLogger } from '@esim/telemetry';
import { provisioningClient, type Provisioning } from '../src/clients/provisioning.js';
import { walletClient, type Wallet } from '../src/clients/wallet.js';
import type { OrdersDeps } from '../src/domain/deps.js';
import { sweepCancellations } from '../src/domain/sweepCancellations.js';
import { B, E, notification, provisionedOrder, T } from './support/esims.js';
import { createTestEnv, orderRequest, type OrdersClient, type TestEnv } from './support/testEnv.js';

const S = ordersV1.OrderStatus;

let env: TestEnv;
let client: OrdersClient;
let plan: { id: string; name: string };
let deps: OrdersDeps;
let wallet: Wallet;
let provisioning: Provisioning;

beforeAll(async () => {
  env = await createTestEnv();
  // The instance's own sweepers never run during the file: the tests drive sweepCancellations themselves.
  ({ client } = await env.start({ ORDERS_SWEEP_INTERVAL_MS: '3600000' }));
  plan = await env.plan('FR');
  wallet = walletClient(env.wallet.address, devTlsFiles('orders'));
  provisioning = provisioningClient(env.provisioning.address, devTlsFiles('orders'));
  const catalog = { getPlanPrice: () => Promise.reject(new Error('never priced')), close: () => {} };
  deps = { pool: env.pool, catalog, wallet, provisioning, cancelWindowMs: 86_400_000, currency: 'USD', logger: createLogger('orders', 'silent') };
});
afterAll(async () => {
  wallet?.close();
  provisioning?.close();
  await env?.cleanup();
});

const refundsOf = (orderId: string) => env.wallet.refundCalls.filter((call) => call.orderId === orderId).length;
const revokesOf = (orderId: string) => env.provisioning.revokeCalls.filter((call) => call.reference === orderId).length;
const cancelledEvents = async (orderId: string) =>
  (await env.outboxFor(orderId)).filter((event) => (event.payload.data as { type?: string }).type === 'order.cancelled');
const flagOf = async (orderId: string) =>
  (await env.query<{ cancel_requested_at: Date | null }>('SELECT cancel_requested_at FROM orders.orders WHERE id = $1', [orderId]))[0]?.cancel_requested_at;

async function firstOrder() {
  const partnerId = env.partner(10_000);
  const order = await provisionedOrder(env, client, { partnerId, planId: plan.id });
  return { partnerId, order, iccid: order.iccid! };
}

/** Refused with the rule named, and nothing anywhere changed. */
async function expectRefused(partnerId: string, orderId: string, rule: RegExp) {
  const balance = env.wallet.balanceOf(partnerId);
  await expect(client.cancelOrder({ partnerId, orderId })).rejects.toMatchObject({ code: 'ORDER_NOT_CANCELLABLE', message: expect.stringMatching(rule) });
  expect(env.wallet.balanceOf(partnerId)).toBe(balance);
  expect(refundsOf(orderId)).toBe(0);
  expect(await flagOf(orderId)).toBeNull();
  expect(await cancelledEvents(orderId)).toEqual([]);
}

describe('CancelOrder', () => {
  beforeAll(() => {
    env.provisioning.mode = 'revoke';
  });

  it('when a first order is unused, then the eSIM is revoked, the price refunded once, and order, bundle and eSIM are cancelled with one order.cancelled', async () => {
    const { partnerId, order, iccid } = await firstOrder();
    const before = env.wallet.balanceOf(partnerId);
    const answer = await client.cancelOrder({ partnerId, orderId: order.id });
    expect(answer).toMatchObject({ alreadyCancelled: false, refundedAmount: order.price, order: { id: order.id, status: S.CANCELLED, esim: { iccid } } });
    expect(answer.order!.cancelledAt).toBeDefined();
    expect(env.wallet.balanceOf(partnerId)).toBe(before + Number(order.price));
    expect(env.provisioning.revokeCalls.filter((call) => call.reference === order.id)).toEqual([{ reference: order.id, iccid, firstBundle: true }]);
    const esim = await client.getEsim({ partnerId, iccid });
    expect(esim.status).toBe(E.CANCELLED);
    expect(esim.bundles.map((bundle) => bundle.status)).toEqual([B.CANCELLED]);
    expect(esim.usage).toMatchObject({ dataTotalMb: 0, dataUsedMb: 0, dataRemainingMb: 0 });
    const [event, ...more] = await cancelledEvents(order.id);
    expect(more).toEqual([]);
    expect(event!.payload.data).toMatchObject({ type: 'order.cancelled', orderId: order.id, payload: { order: { id: order.id, status: 'cancelled' }, refundedAmount: Number(order.price) } });
  });

  it('when a cancelled order is cancelled again, and five times at once, then each answers cancelled and the price came back once', async () => {
    const { partnerId, order } = await firstOrder();
    const answers = await Promise.allSettled(Array.from({ length: 5 }, () => client.cancelOrder({ partnerId, orderId: order.id })));
    const again = await client.cancelOrder({ partnerId, orderId: order.id });
    expect(again).toMatchObject({ alreadyCancelled: true, refundedAmount: order.price, order: { status: S.CANCELLED } });
    for (const answer of answers) if (answer.status === 'fulfilled') expect(answer.value.order!.status).toBe(S.CANCELLED);
    expect(env.wallet.refunds()).toBeGreaterThan(0);
    expect(env.wallet.reservations.get(order.id)?.state).toBe('released');
    expect(env.wallet.balanceOf(order.partnerId)).toBe(10_000);
    expect(await cancelledEvents(order.id)).toHaveLength(1);
  });

  it('when an unused top-up is cancelled, then only its bundle is revoked and cancelled; the eSIM stays, and its first order can be cancelled after', async () => {
    const { partnerId, order, iccid } = await firstOrder();
    const topUp = await provisionedOrder(env, client, { partnerId, planId: plan.id, iccid });
    await expectRefused(partnerId, order.id, /top-up that is not cancelled/);
    expect(await client.cancelOrder({ partnerId, orderId: topUp.id })).toMatchObject({ order: { status: S.CANCELLED, kind: ordersV1.OrderKind.TOPUP } });
    expect(env.provisioning.revokeCalls.find((call) => call.reference === topUp.id)).toMatchObject({ firstBundle: false });
    const esim = await client.getEsim({ partnerId, iccid });
    expect(esim.status).toBe(E.RELEASED);
    expect(esim.bundles.map((bundle) => bundle.status)).toEqual([B.QUEUED, B.CANCELLED]);
    expect(await client.cancelOrder({ partnerId, orderId: order.id })).toMatchObject({ order: { status: S.CANCELLED } });
  });

  it('when an unused top-up became active because the bundle before it ended, then it can be cancelled and the next queued one takes over', async () => {
    const { partnerId, order, iccid } = await firstOrder();
    const { dataMb } = await env.catalog.adminGetPlan({ id: plan.id });
    const second = await provisionedOrder(env, client, { partnerId, planId: plan.id, iccid });
    const third = await provisionedOrder(env, client, { partnerId, planId: plan.id, iccid });
    await client.recordSupplierNotification(notification(T.BUNDLE_USAGE, iccid, { reference: order.id, dataUsedMb: dataMb }));
    expect((await client.getEsim({ partnerId, iccid })).bundles.map((bundle) => bundle.status)).toEqual([B.DEPLETED, B.ACTIVE, B.QUEUED]);
    expect(await client.cancelOrder({ partnerId, orderId: second.id })).toMatchObject({ order: { status: S.CANCELLED } });
    const esim = await client.getEsim({ partnerId, iccid });
    expect(esim.bundles.map((bundle) => [bundle.orderId, bundle.status])).toEqual([
      [order.id, B.DEPLETED],
      [second.id, B.CANCELLED],
      [third.id, B.ACTIVE],
    ]);
  });

  it('when a rule forbids it (not provisioned, used, installed, past the window), then ORDER_NOT_CANCELLABLE names the rule and nothing changed', async () => {
    const partnerId = env.partner(10_000);
    const { order: processing } = await client.createOrder(orderRequest(partnerId, plan.id));
    await expectRefused(partnerId, processing!.id, /processing/);

    const used = await firstOrder();
    await client.recordSupplierNotification(notification(T.BUNDLE_USAGE, used.iccid, { reference: used.order.id, dataUsedMb: 1 }));
    await expectRefused(used.partnerId, used.order.id, /used/);

    const installed = await firstOrder();
    await client.recordSupplierNotification(notification(T.ESIM_INSTALLED, installed.iccid));
    await expectRefused(installed.partnerId, installed.order.id, /installed/);

    const old = await firstOrder();
    await env.query(`UPDATE orders.orders SET provisioned_at = now() - interval '31 days' WHERE id = $1`, [old.order.id]);
    await expectRefused(old.partnerId, old.order.id, /ORDER_CANCEL_WINDOW/);
    expect(revokesOf(processing!.id) + revokesOf(used.order.id) + revokesOf(installed.order.id) + revokesOf(old.order.id)).toBe(0);
  });

  it('when the order is unknown or another partner\'s, then it is ORDER_NOT_FOUND', async () => {
    const { order } = await firstOrder();
    await expect(client.cancelOrder({ partnerId: env.partner(), orderId: order.id })).rejects.toMatchObject({ code: 'ORDER_NOT_FOUND' });
    await expect(client.cancelOrder({ partnerId: order.partnerId, orderId: 'ord_nope' })).rejects.toMatchObject({ code: 'ORDER_NOT_FOUND' });
  });

  it('when the supplier refuses or cannot be reached, then it is ORDER_NOT_CANCELLABLE or UNAVAILABLE, nothing refunded, the order as it was', async () => {
    const { partnerId, order } = await firstOrder();
    try {
      env.provisioning.mode = 'refuse';
      await expectRefused(partnerId, order.id, /supplier refused.*bundle_used/);
      env.provisioning.mode = 'down';
      await expect(client.cancelOrder({ partnerId, orderId: order.id })).rejects.toMatchObject({ code: 'UNAVAILABLE' });
      expect(await flagOf(order.id)).toBeNull();
      expect(refundsOf(order.id)).toBe(0);
      expect((await client.getOrder({ id: order.id, partnerId })).status).toBe(S.PROVISIONED);
    } finally {
      env.provisioning.mode = 'revoke';
    }
    expect(await client.cancelOrder({ partnerId, orderId: order.id })).toMatchObject({ order: { status: S.CANCELLED } });
  });
});

describe('the cancel sweeper', () => {
  it('when the wallet fails after the revoke (a crash between revoke and refund), then the sweeper completes the cancellation, refunded once', async () => {
    const { partnerId, order } = await firstOrder();
    env.wallet.refundDown = true;
    try {
      await expect(client.cancelOrder({ partnerId, orderId: order.id })).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    } finally {
      env.wallet.refundDown = false;
    }
    expect(env.provisioning.revoked.has(order.id)).toBe(true);
    expect(await flagOf(order.id)).not.toBeNull();
    expect((await client.getOrder({ id: order.id, partnerId })).status).toBe(S.PROVISIONED);

    // Too young for the sweeper: a request may still be completing it.
    expect((await sweepCancellations(deps, { olderThanMs: 60_000, maxOrders: 10 })).completed).not.toContain(order.id);
    const result = await sweepCancellations(deps, { olderThanMs: 0, maxOrders: 10 });
    expect(result.completed).toContain(order.id);
    expect((await client.getOrder({ id: order.id, partnerId })).status).toBe(S.CANCELLED);
    expect(env.wallet.balanceOf(partnerId)).toBe(10_000);
    expect(await cancelledEvents(order.id)).toHaveLength(1);
    // A second round and the partner's retry find it done.
    await sweepCancellations(deps, { olderThanMs: 0, maxOrders: 10 });
    expect(await client.cancelOrder({ partnerId, orderId: order.id })).toMatchObject({ alreadyCancelled: true });
    expect(env.wallet.reservations.get(order.id)?.state).toBe('released');
    expect(await cancelledEvents(order.id)).toHaveLength(1);
  });

  it('when the supplier revokes but its answer comes late, then the partner hears 503, the flag stays and the sweeper refunds exactly once (#23)', async () => {
    const { partnerId, order } = await firstOrder();
    env.provisioning.mode = 'late';
    try {
      await expect(client.cancelOrder({ partnerId, orderId: order.id })).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    } finally {
      env.provisioning.mode = 'revoke';
    }
    // Revoked upstream, not refunded yet: the intent is kept for the sweeper.
    expect(env.provisioning.revoked.has(order.id)).toBe(true);
    expect(refundsOf(order.id)).toBe(0);
    expect(await flagOf(order.id)).not.toBeNull();
    const result = await sweepCancellations(deps, { olderThanMs: 0, maxOrders: 10 });
    expect(result.completed).toContain(order.id);
    expect((await client.getOrder({ id: order.id, partnerId })).status).toBe(S.CANCELLED);
    expect(refundsOf(order.id)).toBe(1);
    expect(env.wallet.balanceOf(partnerId)).toBe(10_000);
    // The partner's retry and another round refund nothing more.
    expect(await client.cancelOrder({ partnerId, orderId: order.id })).toMatchObject({ alreadyCancelled: true });
    await sweepCancellations(deps, { olderThanMs: 0, maxOrders: 10 });
    expect(refundsOf(order.id)).toBe(1);
    expect(await cancelledEvents(order.id)).toHaveLength(1);
  });

  it('when a crash left only the flag (nothing revoked yet), then the sweeper revokes, refunds and records it', async () => {
    const { partnerId, order } = await firstOrder();
    await env.query(`UPDATE orders.orders SET cancel_requested_at = now() - interval '1 minute' WHERE id = $1`, [order.id]);
    expect((await sweepCancellations(deps, { olderThanMs: 30_000, maxOrders: 10 })).completed).toContain(order.id);
    expect(revokesOf(order.id)).toBe(1);
    expect(refundsOf(order.id)).toBe(1);
    expect((await client.getOrder({ id: order.id, partnerId })).status).toBe(S.CANCELLED);
  });
});
