// Protects the one refund (#23): the event path (a failed order) and the RPC path (orders asks: a cancellation, a
// dropped order's debit, the reconciliation) share one implementation and one rule table, so an order's price comes
// back once whichever path comes first, and a delivered (captured) order is refunded only when orders asks for it.
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
  await client.reserve({ orderId, partnerId, amount: BigInt(price), description: 'Japan 1 GB / 7 days' });
  return { partnerId, orderId };
}

async function processed(consumer: string, eventId: string): Promise<void> {
  expect(await eventually(async () => (await env.query('SELECT 1 FROM wallet.processed_events WHERE consumer = $1 AND event_id = $2', [consumer, eventId])).length === 1, 10_000)).toBe(true);
}

const refunds = async (partnerId: string) => (await client.getWallet({ partnerId })).ledger.filter((entry) => entry.type === 'refund');

describe('one refund, one set of rules', () => {
  it('when orders asks for the refund of a failed order the event already refunded, then it hears that refund again, and the price came back once', async () => {
    const { partnerId, orderId } = await reservedOrder(1_000, 750);
    await processed('wallet_order_failed', await env.publish('orders.order.provisioning_failed', { orderId, partnerId, reason: 'supplier rejected the SKU' }));
    const asked = await client.refundOrder({ orderId, partnerId, reason: 'reconciliation' });
    expect(asked.replayed).toBe(true);
    expect(await refunds(partnerId)).toHaveLength(1);
    expect(asked.entry!.id).toBe((await refunds(partnerId))[0]!.id);
  });

  it('when the failed event arrives after orders had the price released, then nothing more is refunded', async () => {
    const { partnerId, orderId } = await reservedOrder(1_000, 750);
    expect((await client.refundOrder({ orderId, partnerId, reason: 'order dropped before its payment was confirmed' })).replayed).toBe(false);
    await processed('wallet_order_failed', await env.publish('orders.order.provisioning_failed', { orderId, partnerId, reason: 'late failure' }));
    expect(await refunds(partnerId)).toHaveLength(1);
    expect((await client.getWallet({ partnerId })).balance).toBe(1_000n);
  });

  it('when the order was delivered (captured), then a failure event refunds nothing and a cancellation (orders asks) refunds it once', async () => {
    const { partnerId, orderId } = await reservedOrder(1_000, 750);
    await processed('wallet_order_provisioned', await env.publish('orders.order.provisioned', { orderId, partnerId }));
    await processed('wallet_order_failed', await env.publish('orders.order.provisioning_failed', { orderId, partnerId, reason: 'contradictory' }));
    expect(await refunds(partnerId)).toHaveLength(0);
    expect((await client.refundOrder({ orderId, partnerId, reason: 'order cancelled' })).replayed).toBe(false);
    expect((await client.refundOrder({ orderId, partnerId, reason: 'order cancelled' })).replayed).toBe(true);
    expect(await refunds(partnerId)).toHaveLength(1);
  });
});
