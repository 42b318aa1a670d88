// Protects RefundOrder, the cancellation refund (contract §13): one refund entry per order, held or captured, however often or concurrently asked, and no event that would tell orders the order failed.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@esim/ids';
import { ledgerViolations } from './support/invariants.js';
import { createTestEnv, eventually, fundedPartner, type TestEnv, type WalletClient } from './support/testEnv.js';

let env: TestEnv;
let client: WalletClient;

beforeAll(async () => {
  env = await createTestEnv();
  ({ client } = await env.start());
});
afterEach(async () => expect(await ledgerViolations(env.pool)).toEqual([]));
afterAll(() => env?.cleanup());

async function reservedOrder(balance: number, price: number): Promise<{ partnerId: string; orderId: string }> {
  const partnerId = await fundedPartner(client, balance);
  const orderId = newId('ord');
  await client.reserve({ orderId, partnerId, amount: BigInt(price), description: 'France 1 GB / 7 days' });
  return { partnerId, orderId };
}

const refundedEvents = async (orderId: string) =>
  (await env.query(`SELECT 1 FROM wallet.outbox WHERE subject LIKE '%wallet.order.refunded' AND payload->'data'->>'orderId' = $1`, [orderId])).length;

describe('RefundOrder', () => {
  it('when a held order is refunded, then one refund entry gives the price back, the reservation is released, and wallet.order.refunded is not published', async () => {
    const { partnerId, orderId } = await reservedOrder(1_000, 750);
    const refunded = await client.refundOrder({ orderId, partnerId, reason: 'order cancelled' });
    expect(refunded).toMatchObject({
      replayed: false,
      balanceAfter: 1_000n,
      entry: { type: 'refund', amount: 750n, balanceAfter: 1_000n, orderId, description: 'Refund: order cancelled' },
    });
    expect(await client.getReservation({ orderId })).toMatchObject({ state: 'released' });
    expect(await refundedEvents(orderId)).toBe(0);
  });

  it('when the order was provisioned (its reservation captured), then it is refunded all the same', async () => {
    const { partnerId, orderId } = await reservedOrder(2_000, 900);
    await env.publish('orders.order.provisioned', { orderId, partnerId });
    expect(await eventually(async () => (await client.getReservation({ orderId })).state === 'captured', 10_000)).toBe(true);
    const refunded = await client.refundOrder({ orderId, partnerId, reason: 'order cancelled' });
    expect(refunded).toMatchObject({ replayed: false, balanceAfter: 2_000n, entry: { type: 'refund', amount: 900n } });
    expect(await client.getReservation({ orderId })).toMatchObject({ state: 'released' });
  });

  it('when the same order is refunded again, and many times at once, then every answer is the first refund and the price came back once', async () => {
    const { partnerId, orderId } = await reservedOrder(1_000, 300);
    const answers = await Promise.all(Array.from({ length: 6 }, () => client.refundOrder({ orderId, partnerId, reason: 'order cancelled' })));
    const ids = new Set(answers.map((answer) => answer.entry!.id));
    expect(ids.size).toBe(1);
    expect(answers.filter((answer) => !answer.replayed)).toHaveLength(1);
    const again = await client.refundOrder({ orderId, partnerId, reason: 'order cancelled' });
    expect(again).toMatchObject({ replayed: true, balanceAfter: 1_000n, entry: { id: [...ids][0], amount: 300n } });
    expect((await client.getWallet({ partnerId })).balance).toBe(1_000n);
    expect((await env.query(`SELECT 1 FROM wallet.ledger_entries WHERE order_id = $1 AND type = 'refund'`, [orderId])).length).toBe(1);
  });

  it('when the order has no reservation, or another partner asks, then it is ORDER_NOT_FOUND and nothing is written', async () => {
    const { partnerId, orderId } = await reservedOrder(1_000, 300);
    const stranger = await fundedPartner(client, 100);
    await expect(client.refundOrder({ orderId: newId('ord'), partnerId, reason: '' })).rejects.toMatchObject({ code: 'ORDER_NOT_FOUND' });
    await expect(client.refundOrder({ orderId, partnerId: stranger, reason: '' })).rejects.toMatchObject({ code: 'ORDER_NOT_FOUND' });
    await expect(client.refundOrder({ orderId: 'nope', partnerId, reason: '' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    expect((await client.getWallet({ partnerId })).balance).toBe(700n);
    expect((await client.getWallet({ partnerId: stranger })).balance).toBe(100n);
    expect(await client.getReservation({ orderId })).toMatchObject({ state: 'held' });
  });
});
