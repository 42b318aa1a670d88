// Protects §7's group orders inside the orders service: one order, one debit and one payment.paid for N eSIMs, each provisioned by a unit of its own; the group settles once, provisioned, partially provisioned with the missing units refunded as one amount, or failed; quotes record nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ordersV1 } from '@esim/proto';
import { createTestEnv, esimFor, eventually, orderRequest, type OrdersClient, type TestEnv } from './support/testEnv.js';

const S = ordersV1.OrderStatus;

let env: TestEnv;
let client: OrdersClient;
let plan: { id: string; name: string };

beforeAll(async () => {
  env = await createTestEnv();
  ({ client } = await env.start());
  plan = await env.plan('PT');
});
afterAll(() => env?.cleanup());

async function units(groupId: string): Promise<string[]> {
  const rows = await env.query<{ id: string }>('SELECT id FROM orders.orders WHERE group_order_id = $1 ORDER BY unit', [groupId]);
  return rows.map((row) => row.id);
}

async function failureAsked(groupId: string) {
  const find = async () => (await env.outboxFor(groupId)).find((event) => event.subject === 'orders.order.provisioning_failed');
  expect(await eventually(async () => (await find()) !== undefined)).toBe(true);
  return (await find())!;
}

const statusIs = (id: string, partnerId: string, status: ordersV1.OrderStatus) => async () => (await client.getOrder({ id, partnerId })).status === status;

describe('group orders', () => {
  it('when 3 eSIMs are ordered, then one order is debited 3 × the unit price once, with one payment.paid and one orders.order.paid per unit', async () => {
    const partnerId = env.partner(100_000);
    const { order, walletBalance } = await client.createOrder({ ...orderRequest(partnerId, plan.id), quantity: 3 });
    expect(order!.quantity).toBe(3);
    expect(order!.price).toBe(order!.unitPrice * 3n);
    expect(Number(walletBalance)).toBe(100_000 - Number(order!.price));
    const ids = await units(order!.id);
    expect(ids).toHaveLength(3);
    const events = await env.outboxFor(order!.id);
    expect(events.map((event) => (event.payload.data as { type?: string }).type ?? event.subject)).toEqual(['payment.paid']);
    for (const id of ids) expect((await env.outboxFor(id)).map((event) => event.subject)).toEqual(['orders.order.paid']);
    // Units are internal: not listed, not readable.
    await expect(client.getOrder({ id: ids[0]!, partnerId })).rejects.toMatchObject({ code: 'ORDER_NOT_FOUND' });
    expect((await client.listOrders({ partnerId, page: { page: 1, limit: 10 } })).total).toBe(1);
  });

  it('when every unit is provisioned, then the group is provisioned with every eSIM in unit order, esim the first, announced once', async () => {
    const partnerId = env.partner(100_000);
    const { order } = await client.createOrder({ ...orderRequest(partnerId, plan.id), quantity: 3 });
    const ids = await units(order!.id);
    const esims = ids.map((id) => esimFor(id));
    for (const esim of [esims[2]!, esims[0]!, esims[1]!]) await env.publish('provisioning.succeeded', esim);
    expect(await eventually(statusIs(order!.id, partnerId, S.PROVISIONED))).toBe(true);
    const done = await client.getOrder({ id: order!.id, partnerId });
    expect(done.esims.map((esim) => esim.iccid)).toEqual(esims.map((esim) => esim.iccid));
    expect(done.esim?.iccid).toBe(esims[0]!.iccid);
    expect(done.iccid).toBe(esims[0]!.iccid);
    const events = (await env.outboxFor(order!.id)).map((event) => (event.payload.data as { type?: string }).type ?? event.subject);
    expect(events).toEqual(['payment.paid', 'orders.order.provisioned', 'provision.provisioned']);
    const esimView = await client.getEsim({ partnerId, iccid: esims[1]!.iccid });
    expect(esimView.orderId).toBe(order!.id);
    expect(esimView.bundles[0]!.orderId).toBe(order!.id);
  });

  it('when some units fail, then the missing ones are refunded as one amount, and the group is partially_provisioned with refundedAmount', async () => {
    const partnerId = env.partner(100_000);
    const { order } = await client.createOrder({ ...orderRequest(partnerId, plan.id), quantity: 3 });
    const ids = await units(order!.id);
    await env.publish('provisioning.succeeded', esimFor(ids[0]!));
    await env.publish('provisioning.failed', { orderId: ids[1]!, reason: 'The supplier rejected the order.' });
    await env.publish('provisioning.failed', { orderId: ids[2]!, reason: 'The supplier rejected the order.' });
    const asked = await failureAsked(order!.id);
    expect(asked.payload.data).toMatchObject({ orderId: order!.id, amount: Number(order!.unitPrice) * 2 });
    expect((await client.getOrder({ id: order!.id, partnerId })).status).toBe(S.PROCESSING);
    await env.publish('wallet.order.refunded', { orderId: order!.id, partnerId, amount: Number(order!.unitPrice) * 2, ledgerEntryId: 'led_x', balanceAfter: 0 });
    expect(await eventually(statusIs(order!.id, partnerId, S.PARTIALLY_PROVISIONED))).toBe(true);
    const settled = await client.getOrder({ id: order!.id, partnerId });
    expect(settled.refundedAmount).toBe(order!.unitPrice * 2n);
    expect(settled.esims).toHaveLength(1);
    const announced = (await env.outboxFor(order!.id)).find((event) => (event.payload.data as { type?: string }).type === 'provision.provisioned');
    expect(announced!.payload.data).toMatchObject({ payload: { refundedAmount: Number(order!.unitPrice) * 2, order: { status: 'partially_provisioned', quantity: 3 } } });
  });

  it('when no unit is provisioned, then the whole price is refunded and the group fails as a single order does', async () => {
    const partnerId = env.partner(100_000);
    const { order } = await client.createOrder({ ...orderRequest(partnerId, plan.id), quantity: 2 });
    for (const id of await units(order!.id)) await env.publish('provisioning.failed', { orderId: id, reason: 'The supplier rejected the order.' });
    const asked = await failureAsked(order!.id);
    expect(asked.payload.data).not.toHaveProperty('amount');
    await env.publish('wallet.order.refunded', { orderId: order!.id, partnerId, amount: Number(order!.price), ledgerEntryId: 'led_y', balanceAfter: 0 });
    expect(await eventually(statusIs(order!.id, partnerId, S.FAILED))).toBe(true);
  });

  it('when the quantity is out of range or comes with an iccid, then it is a VALIDATION_ERROR naming quantity', async () => {
    const partnerId = env.partner(100_000);
    for (const quantity of [51, -1]) {
      await expect(client.createOrder({ ...orderRequest(partnerId, plan.id), quantity })).rejects.toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ path: 'quantity' }] });
    }
    await expect(client.createOrder({ ...orderRequest(partnerId, plan.id, { iccid: '8933000000000000001' }), quantity: 2 })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ path: 'quantity' }],
    });
  });

  it('when the same clientRequestId comes back with another quantity, then it is an IDEMPOTENCY_CONFLICT', async () => {
    const partnerId = env.partner(100_000);
    const request = orderRequest(partnerId, plan.id);
    await client.createOrder({ ...request, quantity: 2 });
    await expect(client.createOrder({ ...request, quantity: 3 })).rejects.toMatchObject({ code: 'IDEMPOTENCY_CONFLICT' });
    expect((await client.createOrder({ ...request, quantity: 2 })).replayed).toBe(true);
  });
});

describe('quotes', () => {
  it('when a group is quoted, then the price and balance after are answered, a short balance is not refused, and nothing is recorded', async () => {
    const partnerId = env.partner(1_000);
    const quote = await client.quoteOrder({ partnerId, tier: 'standard', planId: plan.id, email: 'a@example.com', phoneNumber: '+33612345678', quantity: 50 });
    expect(quote.quantity).toBe(50);
    expect(quote.price).toBe(quote.unitPrice * 50n);
    expect(quote.walletBalance).toBe(1_000n);
    expect(quote.balanceAfter).toBe(1_000n - quote.price);
    expect(quote.sufficientBalance).toBe(false);
    expect(quote.compatible).toBeUndefined();
    expect((await client.listOrders({ partnerId, page: { page: 1, limit: 10 } })).total).toBe(0);
    await expect(client.quoteOrder({ partnerId, tier: 'standard', planId: 'plan_nope', email: 'a@example.com', phoneNumber: '+33612345678' })).rejects.toMatchObject({
      code: 'PLAN_NOT_AVAILABLE',
    });
    await expect(
      client.quoteOrder({ partnerId, tier: 'standard', planId: plan.id, email: 'a@example.com', phoneNumber: '+33612345678', iccid: '8933000000000000001' }),
    ).rejects.toMatchObject({ code: 'ESIM_NOT_FOUND' });
  });
});
