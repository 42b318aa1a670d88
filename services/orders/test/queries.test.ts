// Protects the order reads partners and operators rely on: ids reveal nothing across partners, unpaid orders never show, and lists are newest first, filtered, paged and counted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@esim/ids';
import { createTestEnv, orderRequest, type OrdersClient, type TestEnv } from './support/testEnv.js';
import { ordersV1 } from '@esim/proto';

const S = ordersV1.OrderStatus;

let env: TestEnv;
let client: OrdersClient;
let plan: { id: string; name: string };

beforeAll(async () => {
  env = await createTestEnv();
  ({ client } = await env.start());
  plan = await env.plan('NL');
});
afterAll(() => env?.cleanup());

async function ordersOf(partnerId: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push((await client.createOrder(orderRequest(partnerId, plan.id))).order!.id);
  return ids;
}

const markFailed = (ids: string[]) => env.query(`UPDATE orders.orders SET status = 'failed', failure_reason = 'test' WHERE id = ANY($1)`, [ids]);

describe('GetOrder', () => {
  it("when a partner asks for another partner's order, an unknown or a malformed id, then it is ORDER_NOT_FOUND", async () => {
    const [mine] = await ordersOf(env.partner(), 1);
    const other = env.partner();
    for (const [id, partnerId] of [
      [mine!, other],
      [newId('ord'), other],
      ['ord_nope', other],
      ['', other],
      [newId('plan'), other],
    ] as const) {
      await expect(client.getOrder({ id, partnerId }), `${id} for ${partnerId}`).rejects.toMatchObject({ code: 'ORDER_NOT_FOUND' });
    }
  });

  it("when an operator asks (no partner), then any partner's order is returned with its partner id", async () => {
    const partnerId = env.partner();
    const [id] = await ordersOf(partnerId, 1);
    expect(await client.getOrder({ id: id!, partnerId: '' })).toMatchObject({ id, partnerId, status: S.PROCESSING });
  });
});

describe('ListOrders', () => {
  it('when a partner lists, then only their orders come, newest first, paged stably, with the total', async () => {
    const partnerId = env.partner();
    const ids = await ordersOf(partnerId, 5);
    await ordersOf(env.partner(), 1);
    const newestFirst = [...ids].reverse();

    const all = await client.listOrders({ partnerId, page: { page: 1, limit: 100 } });
    expect(all.orders.map((order) => order.id)).toEqual(newestFirst);
    expect(all.total).toBe(5);

    const paged: string[] = [];
    for (let page = 1; page <= 3; page++) {
      const answer = await client.listOrders({ partnerId, page: { page, limit: 2 } });
      expect(answer.total).toBe(5);
      paged.push(...answer.orders.map((order) => order.id));
    }
    expect(paged).toEqual(newestFirst);
    expect(await client.listOrders({ partnerId, page: { page: 4, limit: 2 } })).toMatchObject({ orders: [], total: 5 });
  });

  it('when orders share a creation time, then ties are broken by id, descending', async () => {
    const partnerId = env.partner();
    const ids = await ordersOf(partnerId, 3);
    await env.query(`UPDATE orders.orders SET created_at = '2025-01-01T00:00:00Z' WHERE id = ANY($1)`, [ids]);
    const { orders } = await client.listOrders({ partnerId });
    expect(orders.map((order) => order.id)).toEqual([...ids].sort().reverse());
  });

  it('when filtering by status, then only orders in that status are listed and counted', async () => {
    const partnerId = env.partner();
    const ids = await ordersOf(partnerId, 4);
    await markFailed(ids.slice(0, 2));
    const failed = await client.listOrders({ partnerId, status: S.FAILED });
    expect(failed.orders.map((order) => order.id)).toEqual(ids.slice(0, 2).reverse());
    expect(failed.total).toBe(2);
    expect((await client.listOrders({ partnerId, status: S.PROCESSING })).total).toBe(2);
    expect((await client.listOrders({ partnerId, status: S.PROVISIONED })).total).toBe(0);
  });

  it('when no page is given, then 20 orders come per page', async () => {
    const partnerId = env.partner(1_000_000);
    await ordersOf(partnerId, 21);
    const answer = await client.listOrders({ partnerId });
    expect(answer.orders).toHaveLength(20);
    expect(answer.total).toBe(21);
  });

  it('when an operator lists every partner, then unpaid (pending) orders are neither listed nor counted', async () => {
    const before = await client.listOrders({ partnerId: '', page: { page: 1, limit: 100 } });
    env.wallet.mode = 'down';
    try {
      await expect(client.createOrder(orderRequest(env.partner(), plan.id))).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    } finally {
      env.wallet.mode = 'normal';
    }
    const [paid] = await ordersOf(env.partner(), 1);
    const after = await client.listOrders({ partnerId: '', page: { page: 1, limit: 100 } });
    expect(after.total).toBe(before.total + 1);
    expect(after.orders[0]!.id).toBe(paid);
    expect(after.orders.every((order) => order.status !== S.UNSPECIFIED)).toBe(true);
  });

  it('when the status or paging is out of range, then it is a VALIDATION_ERROR naming the field', async () => {
    const partnerId = env.partner();
    for (const status of [7, 99]) {
      await expect(client.listOrders({ partnerId, status }), String(status)).rejects.toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ path: 'status' }] });
    }
    await expect(client.listOrders({ partnerId, page: { page: 1, limit: 101 } })).rejects.toMatchObject({ errors: [{ path: 'limit' }] });
    await expect(client.listOrders({ partnerId, page: { page: -1, limit: 10 } })).rejects.toMatchObject({ errors: [{ path: 'page' }] });
  });
});
