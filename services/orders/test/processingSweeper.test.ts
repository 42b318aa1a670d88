// Protects the sweeper of orders left processing by a lost result event (issue #14): provisioning's answer settles the order exactly as the lost event would have, the money is refunded once, a late event changes nothing, and an order provisioning is still working on is left alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devTlsFiles } from '@esim/grpc';
import { ordersV1 } from '@esim/proto';
import { createLogger } from '@esim/telemetry';
import { provisioningClient, type Provisioning } from '../src/clients/provisioning.js';
import { walletClient, type Wallet } from '../src/clients/wallet.js';
import type { OrdersDeps } from '../src/domain/deps.js';
import { settleProcessingOrders } from '../src/domain/settleProcessingOrders.js';
import { B, provisionedOrder } from './support/esims.js';
import { createTestEnv, esimFor, eventually, orderRequest, type OrdersClient, type TestEnv } from './support/testEnv.js';

const S = ordersV1.OrderStatus;
const rejected = 'The supplier rejected the order.';

let env: TestEnv;
let client: OrdersClient;
let deps: OrdersDeps;
let wallet: Wallet;
let provisioning: Provisioning;
let plan: { id: string; name: string };
let price: number;

const sweep = { olderThanMs: 1_800_000, maxOrders: 100 };

beforeAll(async () => {
  env = await createTestEnv();
  // This instance's own sweepers never run during the file (but for the last test's instance): the tests drive settleProcessingOrders.
  ({ client } = await env.start({ ORDERS_PROCESSING_SWEEP_INTERVAL_MS: '3600000' }));
  // The real clients, over mutual TLS with the orders identity, to the fakes.
  wallet = walletClient(env.wallet.address, devTlsFiles('orders'));
  provisioning = provisioningClient(env.provisioning.address, devTlsFiles('orders'));
  const catalog = { getPlanPrice: () => Promise.reject(new Error('the sweeper never prices')), close: () => {} };
  deps = { pool: env.pool, catalog, wallet, provisioning, cancelWindowMs: 86_400_000, currency: 'USD', logger: createLogger('orders', 'silent') };
  plan = await env.plan('IT');
  price = Number((await env.catalog.getPlanPrice({ planId: plan.id, tier: 'standard' })).price);
});
afterAll(async () => {
  wallet?.close();
  provisioning?.close();
  await env?.cleanup();
});

/** Makes the order look `ageMs` old since its last change, as one whose result event never came. */
async function age(orderId: string, ageMs = 3_600_000): Promise<void> {
  await env.query(`UPDATE orders.orders SET updated_at = now() - make_interval(secs => $2::double precision / 1000) WHERE id = $1`, [orderId, ageMs]);
}

/** A paid order left processing: created through the RPC (the wallet debits it), then aged. */
async function processingOrder(options: { partnerId?: string; planId?: string; iccid?: string; ageMs?: number } = {}) {
  const partnerId = options.partnerId ?? env.partner(10_000);
  const request = orderRequest(partnerId, options.planId ?? plan.id, options.iccid === undefined ? {} : { iccid: options.iccid });
  const { order } = await client.createOrder(request);
  expect(order!.status).toBe(S.PROCESSING);
  await age(order!.id, options.ageMs);
  return order!;
}

const statusOf = async (id: string) => (await env.query<{ status: string }>('SELECT status FROM orders.orders WHERE id = $1', [id]))[0]?.status;
const subjectsOf = async (id: string) =>
  (await env.outboxFor(id)).map((event) => [event.subject, (event.payload.data as { type?: string }).type ?? null]);

/** Publishes a late event as its producer would and waits until the orders consumer has applied (or skipped) it. */
async function deliverLate(...args: Parameters<TestEnv['publish']>): Promise<void> {
  const eventId = await env.publish(...args);
  const seen = await eventually(async () => (await env.query('SELECT 1 FROM orders.processed_events WHERE event_id = $1', [eventId])).length === 1, 10_000);
  expect(seen, `the consumer to take ${eventId}`).toBe(true);
}

describe('settleProcessingOrders', () => {
  it('when a group order\'s wallet.order.refunded was lost after the wallet refunded its missing units, then it settles partially_provisioned once', async () => {
    const partnerId = env.partner(100_000);
    const { order } = await client.createOrder({ ...orderRequest(partnerId, plan.id), quantity: 2 });
    const units = (await env.query<{ id: string }>('SELECT id FROM orders.orders WHERE group_order_id = $1 ORDER BY unit', [order!.id])).map((row) => row.id);
    await deliverLate('provisioning.succeeded', esimFor(units[0]!));
    await deliverLate('provisioning.failed', { orderId: units[1]!, reason: 'The supplier rejected the order.' });
    // Nothing recorded by the wallet yet: the group is left alone.
    await age(order!.id);
    expect((await settleProcessingOrders(deps, sweep)).failed).not.toContain(order!.id);
    expect(await statusOf(order!.id)).toBe('processing');
    // The wallet refunded the missing unit (its reservation captured), and its event never came.
    env.wallet.reservations.get(order!.id)!.state = 'captured';
    expect((await settleProcessingOrders(deps, sweep)).failed).toContain(order!.id);
    const settled = await client.getOrder({ id: order!.id, partnerId });
    expect(settled).toMatchObject({ status: S.PARTIALLY_PROVISIONED, refundedAmount: BigInt(price) });
    expect(settled.esims).toHaveLength(1);
    expect((await settleProcessingOrders(deps, sweep)).failed).not.toContain(order!.id);
  });

  it('when provisioning.succeeded was lost, then the order is provisioned with its eSIM and its events once, and a late event changes nothing', async () => {
    const order = await processingOrder();
    const esim = esimFor(order.id);
    env.provisioning.states.set(order.id, { state: 'succeeded', esim: { ...esim } });

    const result = await settleProcessingOrders(deps, sweep);
    expect(result.provisioned).toContain(order.id);
    const provisioned = await client.getOrder({ id: order.id, partnerId: order.partnerId });
    expect(provisioned).toMatchObject({ status: S.PROVISIONED, supplierReference: esim.supplierReference });
    expect(provisioned.esim).toMatchObject({ iccid: esim.iccid, smdpAddress: esim.smdpAddress, matchingId: esim.matchingId, activationCode: esim.activationCode });
    expect(provisioned.esim!.qrCode).toMatch(/^data:image\/png;base64,/);
    const written = await env.outboxFor(order.id);
    expect(await subjectsOf(order.id)).toEqual([
      ['orders.order.paid', null],
      ['partner.notification', 'payment.paid'],
      ['orders.order.provisioned', null],
      ['partner.notification', 'provision.provisioned'],
    ]);
    expect(written[2]!.payload.data).toEqual({ orderId: order.id, partnerId: order.partnerId });
    expect(written[3]!.payload.data).toMatchObject({ type: 'provision.provisioned', orderId: order.id, payload: { order: { status: 'provisioned', esim: { iccid: esim.iccid } } } });
    // The eSIM is recorded as the consumer records it (contract §13).
    const recorded = await client.getEsim({ partnerId: order.partnerId, iccid: esim.iccid });
    expect(recorded.bundles.map((bundle) => bundle.orderId)).toEqual([order.id]);
    expect(env.wallet.refundCalls.filter((call) => call.orderId === order.id)).toEqual([]);

    // A second round does not see it; the event arriving late is ignored.
    expect((await settleProcessingOrders(deps, sweep)).provisioned).not.toContain(order.id);
    await deliverLate('provisioning.succeeded', esim);
    expect(await statusOf(order.id)).toBe('provisioned');
    expect(await env.outboxFor(order.id)).toEqual(written);
  });

  it('when a top-up\'s provisioning.succeeded was lost, then the top-up is provisioned on its eSIM with a queued bundle', async () => {
    const partnerId = env.partner(100_000);
    const first = await provisionedOrder(env, client, { partnerId, planId: plan.id });
    const topUp = await processingOrder({ partnerId, iccid: first.iccid! });
    expect(topUp.kind).toBe(ordersV1.OrderKind.TOPUP);
    env.provisioning.states.set(topUp.id, { state: 'succeeded', esim: { ...esimFor(topUp.id, first.iccid!), activationCode: first.esim!.activationCode, matchingId: first.esim!.matchingId } });

    expect((await settleProcessingOrders(deps, sweep)).provisioned).toContain(topUp.id);
    const settled = await client.getOrder({ id: topUp.id, partnerId });
    expect(settled).toMatchObject({ status: S.PROVISIONED, iccid: first.iccid });
    expect((await subjectsOf(topUp.id)).slice(2)).toEqual([
      ['orders.order.provisioned', null],
      ['partner.notification', 'provision.provisioned'],
    ]);
    const esim = await client.getEsim({ partnerId, iccid: first.iccid! });
    expect(esim.bundles.map((bundle) => [bundle.orderId, bundle.status])).toEqual([
      [first.id, B.QUEUED],
      [topUp.id, B.QUEUED],
    ]);
  });

  it('when provisioning.failed was lost, then the wallet refunds once, the order fails with provision.failed, and late events change nothing', async () => {
    const order = await processingOrder();
    env.provisioning.states.set(order.id, { state: 'failed', reason: rejected });
    const refundsBefore = env.wallet.refunds();
    expect(env.wallet.balanceOf(order.partnerId)).toBe(10_000 - price);

    const result = await settleProcessingOrders(deps, sweep);
    expect(result.failed).toContain(order.id);
    expect(env.wallet.refunds()).toBe(refundsBefore + 1);
    expect(env.wallet.refundCalls.filter((call) => call.orderId === order.id)).toEqual([{ orderId: order.id, partnerId: order.partnerId, reason: rejected }]);
    expect(env.wallet.balanceOf(order.partnerId)).toBe(10_000);
    expect(await client.getOrder({ id: order.id, partnerId: order.partnerId })).toMatchObject({ status: S.FAILED, failureReason: rejected });
    const written = await env.outboxFor(order.id);
    // The wallet was paid back directly: no orders.order.provisioning_failed asks it a second time.
    expect(await subjectsOf(order.id)).toEqual([
      ['orders.order.paid', null],
      ['partner.notification', 'payment.paid'],
      ['partner.notification', 'provision.failed'],
    ]);
    expect(written[2]!.payload.data).toMatchObject({ type: 'provision.failed', orderId: order.id, payload: { order: { status: 'failed' }, refundedAmount: price } });

    await deliverLate('provisioning.failed', { orderId: order.id, reason: rejected });
    await deliverLate('wallet.order.refunded', { orderId: order.id, partnerId: order.partnerId, amount: price, ledgerEntryId: 'led_late', balanceAfter: 10_000 });
    expect((await settleProcessingOrders(deps, sweep)).failed).not.toContain(order.id);
    expect(await statusOf(order.id)).toBe('failed');
    expect(await env.outboxFor(order.id)).toEqual(written);
    expect(env.wallet.refunds()).toBe(refundsBefore + 1);
    expect(env.wallet.balanceOf(order.partnerId)).toBe(10_000);
  });

  it('when only wallet.order.refunded was lost, then RefundOrder answers the first refund and the order fails once, with the reason already recorded', async () => {
    const order = await processingOrder();
    // The saga ran up to the wallet's refund: the failure is recorded, the money is back, the last event never came.
    await deliverLate('provisioning.failed', { orderId: order.id, reason: 'The supplier did not respond in time.' });
    await wallet.refund({ orderId: order.id, partnerId: order.partnerId, reason: 'The supplier did not respond in time.' });
    await age(order.id);
    const refundsBefore = env.wallet.refunds();
    env.provisioning.states.set(order.id, { state: 'failed', reason: 'The supplier did not respond in time.' });

    expect((await settleProcessingOrders(deps, sweep)).failed).toContain(order.id);
    expect(env.wallet.refunds()).toBe(refundsBefore);
    expect(env.wallet.balanceOf(order.partnerId)).toBe(10_000);
    expect(await client.getOrder({ id: order.id, partnerId: order.partnerId })).toMatchObject({ status: S.FAILED, failureReason: 'The supplier did not respond in time.' });
    const notices = (await env.outboxFor(order.id)).filter((event) => (event.payload.data as { type?: string }).type === 'provision.failed');
    expect(notices.map((event) => (event.payload.data as { payload: { refundedAmount: number } }).payload.refundedAmount)).toEqual([price]);
  });

  it('when provisioning is still retrying or never heard of the order, then the order is left processing, untouched and unrefunded', async () => {
    const trying = await processingOrder();
    env.provisioning.states.set(trying.id, { state: 'in_progress' });
    const lost = await processingOrder();
    const before = { trying: await env.outboxFor(trying.id), lost: await env.outboxFor(lost.id) };

    const result = await settleProcessingOrders(deps, sweep);
    expect(result.inProgress).toContain(trying.id);
    expect(result.unknown).toContain(lost.id);
    for (const order of [trying, lost]) {
      expect(await statusOf(order.id)).toBe('processing');
      expect(env.wallet.refundCalls.filter((call) => call.orderId === order.id)).toEqual([]);
      expect(env.wallet.balanceOf(order.partnerId)).toBe(10_000 - price);
    }
    expect({ trying: await env.outboxFor(trying.id), lost: await env.outboxFor(lost.id) }).toEqual(before);
  });

  it('when the order is younger than the sweep age, then provisioning is not even asked', async () => {
    const young = await processingOrder({ ageMs: 0 });
    env.provisioning.states.set(young.id, { state: 'failed', reason: rejected });
    const result = await settleProcessingOrders(deps, sweep);
    expect(env.provisioning.stateCalls).not.toContain(young.id);
    expect([...result.failed, ...result.provisioned]).not.toContain(young.id);
    expect(await statusOf(young.id)).toBe('processing');
  });

  it('when a consumer holds the order (a late event being applied), then the sweeper skips it and refunds nothing twice', async () => {
    const order = await processingOrder();
    env.provisioning.states.set(order.id, { state: 'failed', reason: rejected });
    const holder = await env.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT id FROM orders.orders WHERE id = $1 FOR UPDATE', [order.id]);
      expect((await settleProcessingOrders(deps, sweep)).failed).not.toContain(order.id);
      expect(await statusOf(order.id)).toBe('processing');
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    // The next round finishes it; the refund made while it was held is answered again, not repeated.
    const refundsBefore = env.wallet.refunds();
    expect((await settleProcessingOrders(deps, sweep)).failed).toContain(order.id);
    expect(env.wallet.refunds()).toBe(refundsBefore);
    expect(env.wallet.refundCalls.filter((call) => call.orderId === order.id)).toHaveLength(2);
    expect((await subjectsOf(order.id)).filter(([, type]) => type === 'provision.failed')).toHaveLength(1);
  });

  it('when a round is capped, then the next one continues after the last order it looked at', async () => {
    const a = await processingOrder({ ageMs: 7_300_000 });
    const b = await processingOrder({ ageMs: 7_200_000 });
    const first = await settleProcessingOrders(deps, { ...sweep, maxOrders: 1 });
    expect(first.next).toBeDefined();
    const second = await settleProcessingOrders(deps, { ...sweep, maxOrders: 1, after: first.next });
    const seen = [...first.unknown, ...second.unknown];
    // The oldest stale orders come first; a and b are the two oldest in this file.
    expect(seen).toEqual([a.id, b.id]);
  });
});

describe('the processing sweeper loop', () => {
  it('when the service runs with a short interval, then a processing order whose result was lost is provisioned without anyone asking', async () => {
    await env.start({ ORDERS_PROCESSING_SWEEP_INTERVAL_MS: '200', ORDERS_PROCESSING_SWEEP_AFTER_MS: '60000' });
    const order = await processingOrder();
    env.provisioning.states.set(order.id, { state: 'succeeded', esim: esimFor(order.id) });
    expect(await eventually(async () => (await statusOf(order.id)) === 'provisioned', 5_000)).toBe(true);
  });
});
