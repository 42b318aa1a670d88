// Protects CreateOrder, the money path's front door: one clientRequestId is one order and at most one debit, whatever is retried or raced, and refusals leave nothing behind.
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, orderRequest, type OrdersClient, type TestEnv } from './support/testEnv.js';
import { ordersV1 } from '@esim/proto';

const S = ordersV1.OrderStatus;

let env: TestEnv;
let client: OrdersClient;
let plan: { id: string; name: string };
let standardPrice: number;
const logLines: string[] = [];

beforeAll(async () => {
  env = await createTestEnv();
  const logger = pino({ level: 'info' }, { write: (line: string) => void logLines.push(line) });
  ({ client } = await env.start({}, logger));
  plan = await env.plan('FR');
  standardPrice = Number((await env.catalog.getPlanPrice({ planId: plan.id, tier: 'standard' })).price);
});
afterAll(() => env?.cleanup());

const rowsFor = (partnerId: string, clientRequestId: string) =>
  env.query<{ id: string; status: string }>('SELECT id, status FROM orders.orders WHERE partner_id = $1 AND client_request_id = $2', [partnerId, clientRequestId]);

describe('CreateOrder', () => {
  it('when the partner can pay, then the order is processing, the price is debited once and order.paid then payment.paid are in the outbox', async () => {
    const partnerId = env.partner(10_000);
    const request = orderRequest(partnerId, plan.id);
    const created = await client.createOrder(request);

    expect(created.replayed).toBe(false);
    expect(created.walletBalance).toBe(BigInt(10_000 - standardPrice));
    const order = created.order!;
    expect(order).toMatchObject({
      partnerId,
      clientRequestId: request.clientRequestId,
      planId: plan.id,
      planName: plan.name,
      status: S.PROCESSING,
      kind: ordersV1.OrderKind.ESIM,
      price: BigInt(standardPrice),
      currency: 'USD',
      email: request.email,
      phoneNumber: request.phoneNumber,
    });
    expect(order.id).toMatch(/^ord_[0-9a-z]{26}$/);
    expect(order.esim).toBeUndefined();
    expect(order.failureReason).toBeUndefined();
    expect(order.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(await client.getOrder({ id: order.id, partnerId })).toEqual(order);
    expect(env.wallet.reserveCalls.filter((call) => call.orderId === order.id)).toEqual([
      { orderId: order.id, partnerId, amount: standardPrice, description: plan.name },
    ]);

    const { supplierSku } = await env.catalog.adminGetPlan({ id: plan.id });
    const events = await env.outboxFor(order.id);
    expect(events.map((event) => event.subject)).toEqual(['orders.order.paid', 'partner.notification']);
    const { dataMb, validityDays, profileType } = await env.catalog.adminGetPlan({ id: plan.id });
    expect(events[0]!.payload.data).toEqual({
      orderId: order.id,
      partnerId,
      planId: plan.id,
      supplierSku,
      price: standardPrice,
      currency: 'USD',
      kind: 'esim',
      iccid: null,
      dataMb,
      validityDays,
      // The plan's SM-DP+ profile type travels with the order to provisioning's DownloadOrder (§8).
      ...(profileType ? { profileType } : {}),
    });
    expect(events[1]!.payload.data).toEqual({
      partnerId,
      type: 'payment.paid',
      orderId: order.id,
      payload: { orderId: order.id, clientRequestId: request.clientRequestId, amount: standardPrice, currency: 'USD', walletBalance: 10_000 - standardPrice },
    });
  });

  it('when the same request is sent again, then it answers the same order, replayed, with the current balance and no second debit', async () => {
    const partnerId = env.partner(10_000);
    const request = orderRequest(partnerId, plan.id);
    const first = await client.createOrder(request);
    env.wallet.setBalance(partnerId, 4_321);
    const again = await client.createOrder(request);

    expect(again).toMatchObject({ replayed: true, walletBalance: 4_321n });
    expect(again.order).toEqual(first.order);
    expect(env.wallet.reserveCalls.filter((call) => call.partnerId === partnerId)).toHaveLength(1);
    expect(await env.outboxFor(first.order!.id)).toHaveLength(2);
  });

  it('when the clientRequestId is reused with a different body, then it is IDEMPOTENCY_CONFLICT and nothing changes', async () => {
    const partnerId = env.partner(10_000);
    const request = orderRequest(partnerId, plan.id);
    const first = await client.createOrder(request);
    const otherPlan = await env.plan('DE');
    for (const changed of [{ email: 'john@example.com' }, { phoneNumber: '+33699999999' }, { planId: otherPlan.id }]) {
      await expect(client.createOrder({ ...request, ...changed }), JSON.stringify(changed)).rejects.toMatchObject({ code: 'IDEMPOTENCY_CONFLICT' });
    }
    expect(await rowsFor(partnerId, request.clientRequestId)).toEqual([{ id: first.order!.id, status: 'processing' }]);
    expect(env.wallet.debits()).toBe(env.wallet.reserveCalls.length);
  });

  it('when the wallet does not answer, then it is UNAVAILABLE, retries answer REQUEST_IN_PROGRESS, and the order is not visible', async () => {
    const partnerId = env.partner(10_000);
    const request = orderRequest(partnerId, plan.id);
    env.wallet.mode = 'down';
    try {
      await expect(client.createOrder(request)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    } finally {
      env.wallet.mode = 'normal';
    }
    const [pending] = await rowsFor(partnerId, request.clientRequestId);
    expect(pending).toMatchObject({ status: 'pending' });
    await expect(client.createOrder(request)).rejects.toMatchObject({ code: 'REQUEST_IN_PROGRESS' });
    await expect(client.createOrder({ ...request, email: 'other@example.com' })).rejects.toMatchObject({ code: 'IDEMPOTENCY_CONFLICT' });
    await expect(client.getOrder({ id: pending!.id, partnerId })).rejects.toMatchObject({ code: 'ORDER_NOT_FOUND' });
    expect((await client.listOrders({ partnerId })).total).toBe(0);
    expect(env.wallet.balanceOf(partnerId)).toBe(10_000);
  });

  it('when 20 identical requests race, then there is one order and one debit, and each answers that order or REQUEST_IN_PROGRESS (3 rounds)', async () => {
    env.wallet.reserveDelayMs = 50;
    try {
      for (let round = 1; round <= 3; round++) {
        const partnerId = env.partner(10_000);
        const request = orderRequest(partnerId, plan.id);
        const debitsBefore = env.wallet.debits();
        const results = await Promise.allSettled(Array.from({ length: 20 }, () => client.createOrder(request)));

        const rows = await rowsFor(partnerId, request.clientRequestId);
        expect(rows, `round ${round}`).toEqual([{ id: expect.any(String), status: 'processing' }]);
        expect(env.wallet.debits() - debitsBefore, `round ${round}`).toBe(1);
        const answered = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
        const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as { code: string }] : []));
        expect(answered.every((a) => a.order!.id === rows[0]!.id), `round ${round}`).toBe(true);
        expect(answered.filter((a) => !a.replayed), `round ${round}`).toHaveLength(1);
        expect(refused.every((e) => e.code === 'REQUEST_IN_PROGRESS'), `round ${round}: ${refused.map((e) => e.code)}`).toBe(true);
        expect(await env.outboxFor(rows[0]!.id)).toHaveLength(2);
      }
    } finally {
      env.wallet.reserveDelayMs = 0;
    }
  });

  it('when the balance is below the price, then it is INSUFFICIENT_BALANCE, nothing is stored or debited, and the clientRequestId is free again', async () => {
    const partnerId = env.partner(standardPrice - 1);
    const request = orderRequest(partnerId, plan.id);
    await expect(client.createOrder(request)).rejects.toMatchObject({ code: 'INSUFFICIENT_BALANCE' });
    expect(await rowsFor(partnerId, request.clientRequestId)).toEqual([]);
    expect(env.wallet.balanceOf(partnerId)).toBe(standardPrice - 1);
    expect((await client.listOrders({ partnerId })).total).toBe(0);

    env.wallet.setBalance(partnerId, standardPrice);
    const created = await client.createOrder(request);
    expect(created).toMatchObject({ replayed: false, walletBalance: 0n });
  });

  it('when the plan is unknown or inactive, then it is PLAN_NOT_AVAILABLE and nothing is stored or reserved', async () => {
    const partnerId = env.partner(10_000);
    const inactive = await env.plan('IT');
    await env.catalog.updatePlan({ id: inactive.id, plan: { active: false }, audit: { operator: 'orders-test' } });
    try {
      for (const planId of ['plan_01jgfjjz0a1rdj6z43ynhpn7zz', 'plan_nope', inactive.id]) {
        await expect(client.createOrder(orderRequest(partnerId, planId)), planId).rejects.toMatchObject({ code: 'PLAN_NOT_AVAILABLE' });
      }
    } finally {
      await env.catalog.updatePlan({ id: inactive.id, plan: { active: true }, audit: { operator: 'orders-test' } });
    }
    expect(await env.query('SELECT id FROM orders.orders WHERE partner_id = $1', [partnerId])).toEqual([]);
    expect(env.wallet.reserveCalls.filter((call) => call.partnerId === partnerId)).toEqual([]);
  });

  it.each(['premium', 'enterprise'])('when a %s partner orders, then the price charged is the catalog price for that tier', async (tier) => {
    const partnerId = env.partner(10_000);
    const { price } = await env.catalog.getPlanPrice({ planId: plan.id, tier });
    expect(price).not.toBe(BigInt(standardPrice));
    const created = await client.createOrder(orderRequest(partnerId, plan.id, { tier }));
    expect(created.order!.price).toBe(price);
    expect(created.walletBalance).toBe(10_000n - price);
    expect(env.wallet.reserveCalls.find((call) => call.orderId === created.order!.id)?.amount).toBe(Number(price));
  });

  it('when two partners use the same clientRequestId, then each gets an order of their own', async () => {
    const [a, b] = [env.partner(10_000), env.partner(10_000)];
    const clientRequestId = 'shared-id-001';
    const first = await client.createOrder(orderRequest(a, plan.id, { clientRequestId }));
    const second = await client.createOrder(orderRequest(b, plan.id, { clientRequestId }));
    expect(second.replayed).toBe(false);
    expect(second.order!.id).not.toBe(first.order!.id);
    expect(second.order!.partnerId).toBe(b);
  });

  it('when a field breaks its rule, then it is a VALIDATION_ERROR naming it and nothing is stored', async () => {
    const partnerId = env.partner(10_000);
    const cases: [string, Record<string, string>][] = [
      ['phoneNumber', { phoneNumber: '0612345678' }],
      ['email', { email: 'not-an-email' }],
      ['clientRequestId', { clientRequestId: 'has space' }],
      ['tier', { tier: 'vip' }],
    ];
    for (const [path, overrides] of cases) {
      await expect(client.createOrder(orderRequest(partnerId, plan.id, overrides)), path).rejects.toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ path }] });
    }
    expect(await env.query('SELECT id FROM orders.orders WHERE partner_id = $1', [partnerId])).toEqual([]);
  });

  it('when orders are created and refused, then the logs name the customer only masked', async () => {
    const partnerId = env.partner(10_000);
    await client.createOrder(orderRequest(partnerId, plan.id, { email: 'mask.me@example.org', phoneNumber: '+447700900123' }));
    await client.createOrder(orderRequest(env.partner(0), plan.id, { email: 'mask.me@example.org', phoneNumber: '+447700900123' })).catch(() => {});
    const text = logLines.join('');
    expect(text).toContain('m***@example.org');
    expect(text).toContain('***23');
    expect(text).not.toContain('mask.me@');
    expect(text).not.toContain('447700900123');
  });
});
