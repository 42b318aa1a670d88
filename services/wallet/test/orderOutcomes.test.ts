// Protects the end of the order saga through real JetStream: a failed order is refunded exactly once and announced once, a provisioned order's hold is captured, however often either event arrives.
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

/** A partner with `balance`, and one of its orders reserved at `price`. */
async function reservedOrder(balance: number, price: number): Promise<{ partnerId: string; orderId: string }> {
  const partnerId = await fundedPartner(client, balance);
  const orderId = newId('ord');
  await client.reserve({ orderId, partnerId, amount: BigInt(price), description: 'Japan 1 GB / 7 days' });
  return { partnerId, orderId };
}

/** Resolves once the consumer has committed the event with this id (events of one consumer are handled in order). */
async function processed(consumer: string, eventId: string): Promise<void> {
  const done = await eventually(async () => (await env.query('SELECT 1 FROM wallet.processed_events WHERE consumer = $1 AND event_id = $2', [consumer, eventId])).length === 1, 10_000);
  expect(done, `${consumer} processed ${eventId}`).toBe(true);
}

interface RefundedRow {
  payload: { data: Record<string, unknown> };
  published_at: Date | null;
}
const refundedEvents = (orderId: string) =>
  env.query<RefundedRow>(`SELECT payload, published_at FROM wallet.outbox WHERE subject = 'wallet.order.refunded' AND payload->'data'->>'orderId' = $1`, [orderId]);

describe('orders.order.provisioning_failed', () => {
  it('when the event is redelivered and a second event follows, then the price is refunded once and wallet.order.refunded is published once', async () => {
    const { partnerId, orderId } = await reservedOrder(1_000, 750);
    const data = { orderId, partnerId, reason: 'supplier rejected the SKU' };
    const first = await env.publish('orders.order.provisioning_failed', data);
    await env.publish('orders.order.provisioning_failed', data, { id: first, msgId: newId('evt') });
    const second = await env.publish('orders.order.provisioning_failed', data);
    await processed('wallet_order_failed', second);

    const wallet = await client.getWallet({ partnerId });
    expect(wallet.balance).toBe(1_000n);
    const refunds = wallet.ledger.filter((entry) => entry.type === 'refund');
    expect(refunds).toMatchObject([{ amount: 750n, balanceAfter: 1_000n, orderId, description: 'Refund: supplier rejected the SKU' }]);
    expect(await client.getReservation({ orderId })).toMatchObject({ state: 'released', amount: 750n });

    const events = await refundedEvents(orderId);
    expect(events.map((row) => row.payload.data)).toEqual([{ orderId, partnerId, amount: 750, ledgerEntryId: refunds[0]!.id, balanceAfter: 1_000 }]);
    expect(await eventually(async () => (await refundedEvents(orderId))[0]?.published_at != null, 5_000)).toBe(true);
  });

  it('when the order has no reservation, then the event is consumed and nothing is written', async () => {
    const partnerId = await fundedPartner(client, 300);
    const orderId = newId('ord');
    const eventId = await env.publish('orders.order.provisioning_failed', { orderId, partnerId, reason: 'never paid' });
    await processed('wallet_order_failed', eventId);
    expect((await client.getWallet({ partnerId })).ledger).toHaveLength(1);
    expect(await refundedEvents(orderId)).toEqual([]);
  });

  it('when the order was already provisioned, then a failure event refunds nothing and the hold stays captured', async () => {
    const { partnerId, orderId } = await reservedOrder(1_000, 400);
    await processed('wallet_order_provisioned', await env.publish('orders.order.provisioned', { orderId, partnerId }));
    await processed('wallet_order_failed', await env.publish('orders.order.provisioning_failed', { orderId, partnerId, reason: 'late' }));
    expect((await client.getWallet({ partnerId })).balance).toBe(600n);
    expect(await client.getReservation({ orderId })).toMatchObject({ state: 'captured' });
    expect(await refundedEvents(orderId)).toEqual([]);
  });
});

describe('orders.order.provisioned', () => {
  it('when the event is redelivered and a second event follows, then the hold is captured and the balance does not move', async () => {
    const { partnerId, orderId } = await reservedOrder(1_000, 250);
    const first = await env.publish('orders.order.provisioned', { orderId, partnerId });
    await env.publish('orders.order.provisioned', { orderId, partnerId }, { id: first, msgId: newId('evt') });
    const second = await env.publish('orders.order.provisioned', { orderId, partnerId });
    await processed('wallet_order_provisioned', second);
    expect(await client.getReservation({ orderId })).toMatchObject({ state: 'captured', amount: 250n });
    const wallet = await client.getWallet({ partnerId });
    expect(wallet.balance).toBe(750n);
    expect(wallet.ledger.map((entry) => entry.type)).toEqual(['order_debit', 'topup']);
  });

  it('when the order has no reservation, then the event is consumed and nothing changes', async () => {
    const orderId = newId('ord');
    await processed('wallet_order_provisioned', await env.publish('orders.order.provisioned', { orderId, partnerId: newId('ptn') }));
    await expect(client.getReservation({ orderId })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
