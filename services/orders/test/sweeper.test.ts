// Protects the sweeper that settles orders left 'pending' by a crash or a wallet outage: the wallet's reservation decides, each order is settled once, a request still paying is left alone, and one that outlives the sweep age never leaves money held for no order.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devTlsFiles } from '@esim/grpc';
import { createLogger } from '@esim/telemetry';
import { walletClient, type Wallet } from '../src/clients/wallet.js';
import type { OrdersDeps } from '../src/domain/deps.js';
import { minimumPendingAgeMs, settlePendingOrders, type SweepResult } from '../src/domain/settlePendingOrders.js';
import { createTestEnv, eventually, orderRequest, type OrdersClient, type TestEnv } from './support/testEnv.js';
import type { ReserveMode } from './support/fakeWallet.js';
import { ordersV1 } from '@esim/proto';

const S = ordersV1.OrderStatus;

let env: TestEnv;
let client: OrdersClient;
let deps: OrdersDeps;
let wallet: Wallet;
let plan: { id: string; name: string };
let price: number;

const sweep = { olderThanMs: 30_000, maxOrders: 100 };

beforeAll(async () => {
  env = await createTestEnv();
  // This instance's own sweeper never runs during the file: the tests drive settlePendingOrders themselves.
  ({ client } = await env.start({ ORDERS_SWEEP_INTERVAL_MS: '3600000' }));
  wallet = walletClient(env.wallet.address, devTlsFiles('orders'));
  const catalog = { getPlanPrice: () => Promise.reject(new Error('the sweeper never prices')), close: () => {} };
  const never = () => Promise.reject(new Error('the pending sweeper never asks provisioning'));
  const provisioning = { revokeBundle: never, provisioningState: never, setSuspended: never, controlTestEsim: never, close: () => {} };
  deps = { pool: env.pool, catalog, wallet, provisioning, cancelWindowMs: 86_400_000, currency: 'USD', logger: createLogger('orders', 'silent') };
  plan = await env.plan('ES');
  price = Number((await env.catalog.getPlanPrice({ planId: plan.id, tier: 'standard' })).price);
});
afterAll(async () => {
  wallet?.close();
  await env?.cleanup();
});

/** A CreateOrder that fails in `mode`, leaving its row 'pending'; `ageMs` backdates the row. */
async function pendingOrder(mode: ReserveMode, ageMs = 3_600_000) {
  const partnerId = env.partner(10_000);
  const request = orderRequest(partnerId, plan.id);
  env.wallet.mode = mode;
  try {
    await expect(client.createOrder(request)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  } finally {
    env.wallet.mode = 'normal';
  }
  const [row] = await env.query<{ id: string }>(
    `UPDATE orders.orders SET created_at = now() - make_interval(secs => $3::double precision / 1000)
     WHERE partner_id = $1 AND client_request_id = $2 AND status = 'pending' RETURNING id`,
    [partnerId, request.clientRequestId, ageMs],
  );
  return { partnerId, request, id: row!.id };
}

/** Backdates an order past every sweep age, as if its request had been paying for an hour. */
const age = (id: string) => env.query(`UPDATE orders.orders SET created_at = now() - interval '1 hour' WHERE id = $1`, [id]);

const statusOf = async (id: string) => (await env.query<{ status: string }>('SELECT status FROM orders.orders WHERE id = $1', [id]))[0]?.status;

describe('settlePendingOrders', () => {
  it('when the wallet holds the reservation, then the order is confirmed with order.paid and payment.paid, and a retry replays it', async () => {
    const { partnerId, request, id } = await pendingOrder('answer-lost');
    await expect(client.createOrder(request)).rejects.toMatchObject({ code: 'REQUEST_IN_PROGRESS' });

    const result = await settlePendingOrders(deps, sweep);
    expect(result.completed).toContain(id);
    expect(await statusOf(id)).toBe('processing');
    const events = await env.outboxFor(id);
    expect(events.map((event) => event.subject)).toEqual(['orders.order.paid', 'partner.notification']);
    expect(events[0]!.payload.data).toMatchObject({ orderId: id, partnerId, planId: plan.id, price });
    expect(events[1]!.payload.data).toMatchObject({ type: 'payment.paid', payload: { orderId: id, amount: price, walletBalance: 10_000 - price } });

    const replay = await client.createOrder(request);
    expect(replay).toMatchObject({ replayed: true, walletBalance: BigInt(10_000 - price), order: { id, status: S.PROCESSING } });
    expect(env.wallet.reserveCalls.filter((call) => call.orderId === id)).toHaveLength(1);
  });

  it('when the wallet has no reservation, then the order is deleted, no event is written and the clientRequestId is free again', async () => {
    const { partnerId, request, id } = await pendingOrder('down');
    const result = await settlePendingOrders(deps, sweep);
    expect(result.dropped).toContain(id);
    expect(await statusOf(id)).toBeUndefined();
    expect(await env.outboxFor(id)).toEqual([]);

    const created = await client.createOrder(request);
    expect(created).toMatchObject({ replayed: false, order: { partnerId, status: S.PROCESSING } });
    expect(created.order!.id).not.toBe(id);
  });

  it('when the pending order is younger than the sweep age, then it is left alone', async () => {
    const { id } = await pendingOrder('down', 0);
    const result = await settlePendingOrders(deps, sweep);
    expect([...result.completed, ...result.dropped]).not.toContain(id);
    expect(await statusOf(id)).toBe('pending');
  });

  it('when the wallet is unreachable, then the round fails, the order stays pending, and a later round settles it', async () => {
    const { id } = await pendingOrder('answer-lost');
    env.wallet.unreachable = true;
    try {
      await expect(settlePendingOrders(deps, sweep)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    } finally {
      env.wallet.unreachable = false;
    }
    expect(await statusOf(id)).toBe('pending');
    expect((await settlePendingOrders(deps, sweep)).completed).toContain(id);
    expect(await statusOf(id)).toBe('processing');
  });

  it('when the pending order is younger than the Reserve deadline plus its margin, then a shorter configured age does not make it the sweeper\'s', async () => {
    const { id } = await pendingOrder('down', minimumPendingAgeMs - 3_000);
    const result = await settlePendingOrders(deps, { olderThanMs: 1_000, maxOrders: 100 });
    expect([...result.completed, ...result.dropped]).not.toContain(id);
    expect(await statusOf(id)).toBe('pending');
  });

  it('when the sweeper drops an order whose Reserve then debits (a request outliving the sweep age), then the request releases the debit, answers UNAVAILABLE and a retry is a new order', async () => {
    const partnerId = env.partner(10_000);
    const request = orderRequest(partnerId, plan.id);
    let swept: SweepResult | undefined;
    env.wallet.onReserve = async (call, phase) => {
      if (phase !== 'before') return;
      await age(call.orderId);
      swept = await settlePendingOrders(deps, sweep);
    };
    try {
      await expect(client.createOrder(request)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    } finally {
      env.wallet.onReserve = undefined;
    }
    const dropped = env.wallet.reserveCalls.find((call) => call.partnerId === partnerId)!.orderId;
    expect(swept!.dropped).toEqual([dropped]);
    expect(await statusOf(dropped)).toBeUndefined();
    expect(await env.outboxFor(dropped)).toEqual([]);
    expect(env.wallet.refundCalls.filter((call) => call.orderId === dropped)).toHaveLength(1);
    expect(env.wallet.reservations.get(dropped)?.state).toBe('released');
    expect(env.wallet.balanceOf(partnerId)).toBe(10_000);

    const created = await client.createOrder(request);
    expect(created).toMatchObject({ replayed: false, walletBalance: BigInt(10_000 - price), order: { partnerId, status: S.PROCESSING } });
    expect(created.order!.id).not.toBe(dropped);
  });

  it('when the sweeper confirms an order while its request is still answering, then the request answers that order and the events are written once', async () => {
    const partnerId = env.partner(10_000);
    const request = orderRequest(partnerId, plan.id);
    let swept: SweepResult | undefined;
    env.wallet.onReserve = async (call, phase) => {
      if (phase !== 'after') return;
      await age(call.orderId);
      swept = await settlePendingOrders(deps, sweep);
    };
    let created;
    try {
      created = await client.createOrder(request);
    } finally {
      env.wallet.onReserve = undefined;
    }
    const id = created.order!.id;
    expect(swept!.completed).toEqual([id]);
    expect(created).toMatchObject({ replayed: false, walletBalance: BigInt(10_000 - price), order: { id, status: S.PROCESSING } });
    expect((await env.outboxFor(id)).map((event) => event.subject)).toEqual(['orders.order.paid', 'partner.notification']);
    expect(env.wallet.reserveCalls.filter((call) => call.orderId === id)).toHaveLength(1);
    expect(env.wallet.refundCalls.filter((call) => call.orderId === id)).toEqual([]);
  });

  it('when two sweepers run at once, then every pending order is settled exactly once', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await pendingOrder('answer-lost')).id);
    const [a, b] = await Promise.all([settlePendingOrders(deps, sweep), settlePendingOrders(deps, sweep)]);
    const completed = [...a.completed, ...b.completed].filter((id) => ids.includes(id));
    expect(completed.sort()).toEqual([...ids].sort());
    for (const id of ids) expect((await env.outboxFor(id)).map((event) => event.subject)).toEqual(['orders.order.paid', 'partner.notification']);
  });
});

describe('the sweeper loop', () => {
  it('when the service runs with a short sweep interval, then a stale pending order is settled without anyone asking', async () => {
    await env.start({ ORDERS_SWEEP_INTERVAL_MS: '200', ORDERS_SWEEP_AFTER_MS: '1000' });
    const { id } = await pendingOrder('answer-lost');
    expect(await eventually(async () => (await statusOf(id)) === 'processing', 5_000)).toBe(true);
  });
});
