// Protects paying for an order: Reserve debits the price once per order, answers replays with the first debit, refuses a too-low balance without writing, and GetReservation reports the hold.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@esim/ids';
import { ledgerViolations } from './support/invariants.js';
import { createTestEnv, fundedPartner, type TestEnv, type WalletClient } from './support/testEnv.js';

let env: TestEnv;
let client: WalletClient;

beforeAll(async () => {
  env = await createTestEnv();
  ({ client } = await env.start());
});
afterEach(async () => expect(await ledgerViolations(env.pool)).toEqual([]));
afterAll(() => env?.cleanup());

const order = (partnerId: string, amount: number, description = 'France 5 GB / 30 days') => ({
  orderId: newId('ord'),
  partnerId,
  amount: BigInt(amount),
  description,
});

describe('Reserve', () => {
  it('when the balance covers the price, then an order_debit of minus the price is recorded and the reservation is held', async () => {
    const partnerId = await fundedPartner(client, 10_000);
    const request = order(partnerId, 750);
    const reserved = await client.reserve(request);
    expect(reserved).toMatchObject({
      replayed: false,
      balanceAfter: 9_250n,
      entry: { type: 'order_debit', amount: -750n, balanceAfter: 9_250n, orderId: request.orderId, description: 'France 5 GB / 30 days' },
    });
    expect(reserved.entry!.id).toMatch(/^led_[0-9a-z]{26}$/);
    expect(reserved.entry!.reference).toBeUndefined();
    expect(await client.getReservation({ orderId: request.orderId })).toMatchObject({ orderId: request.orderId, partnerId, amount: 750n, state: 'held' });
    expect((await client.getWallet({ partnerId })).balance).toBe(9_250n);
  });

  it('when the same order is reserved again, then the first debit is answered as replayed and nothing more is debited', async () => {
    const partnerId = await fundedPartner(client, 1_000);
    const request = order(partnerId, 400);
    const first = await client.reserve(request);
    await client.reserve(order(partnerId, 100));
    const again = await client.reserve(request);
    expect(again).toEqual({ ...first, replayed: true });
    expect((await client.getWallet({ partnerId })).balance).toBe(500n);
  });

  it('when the balance is lower than the price, then it is INSUFFICIENT_BALANCE naming both amounts, and nothing is written', async () => {
    const partnerId = await fundedPartner(client, 500);
    const request = order(partnerId, 750);
    await expect(client.reserve(request)).rejects.toMatchObject({
      code: 'INSUFFICIENT_BALANCE',
      message: 'Wallet balance 500 is lower than the order price 750 (USD cents).',
    });
    expect((await client.getWallet({ partnerId })).ledger).toHaveLength(1);
    await expect(client.getReservation({ orderId: request.orderId })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('when the partner never had a wallet, then it is INSUFFICIENT_BALANCE from 0 and no wallet row is created', async () => {
    const partnerId = newId('ptn');
    await expect(client.reserve(order(partnerId, 1))).rejects.toMatchObject({ code: 'INSUFFICIENT_BALANCE', message: expect.stringContaining('balance 0 ') });
    expect(await env.query('SELECT 1 FROM wallet.wallets WHERE partner_id = $1', [partnerId])).toEqual([]);
  });

  it('when the price is exactly the balance, then the order is paid and the balance is 0', async () => {
    const partnerId = await fundedPartner(client, 750);
    await expect(client.reserve(order(partnerId, 750))).resolves.toMatchObject({ balanceAfter: 0n });
  });

  it('when the same order id comes with another partner or price, then it is IDEMPOTENCY_CONFLICT and nothing moves', async () => {
    const partnerId = await fundedPartner(client, 1_000);
    const other = await fundedPartner(client, 1_000);
    const request = order(partnerId, 300);
    await client.reserve(request);
    await expect(client.reserve({ ...request, amount: 301n })).rejects.toMatchObject({ code: 'IDEMPOTENCY_CONFLICT' });
    await expect(client.reserve({ ...request, partnerId: other })).rejects.toMatchObject({ code: 'IDEMPOTENCY_CONFLICT' });
    expect((await client.getWallet({ partnerId: other })).balance).toBe(1_000n);
  });

  it.each([
    ['orderId', 'not an ord_ id', { orderId: 'ord_nope' }],
    ['partnerId', 'empty', { partnerId: '' }],
    ['amount', '0', { amount: 0n }],
    ['amount', 'negative', { amount: -5n }],
    ['amount', 'over 10^9', { amount: 1_000_000_001n }],
    ['description', '501 characters', { description: 'x'.repeat(501) }],
  ] as const)('when %s is %s, then it is a VALIDATION_ERROR naming it and nothing moves', async (path, _label, overrides) => {
    const partnerId = await fundedPartner(client, 1_000);
    await expect(client.reserve({ ...order(partnerId, 100), ...overrides })).rejects.toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ path }] });
    expect((await client.getWallet({ partnerId })).balance).toBe(1_000n);
  });
});

describe('GetReservation', () => {
  it('when the order was never reserved, or the id is malformed or empty, then it is NOT_FOUND', async () => {
    for (const orderId of [newId('ord'), 'ord_x', '']) {
      await expect(client.getReservation({ orderId }), orderId).rejects.toMatchObject({ code: 'NOT_FOUND' });
    }
  });
});
