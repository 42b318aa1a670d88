// Protects what the reconciliation (contract §11) reads of the wallet: held reservations by age, the reservations of
// the orders named, and wallets whose balance is not their ledger's sum.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@esim/ids';
import { createTestEnv, fundedPartner, type TestEnv, type WalletClient } from './support/testEnv.js';

let env: TestEnv;
let client: WalletClient;

beforeAll(async () => {
  env = await createTestEnv();
  ({ client } = await env.start());
});
afterAll(() => env?.cleanup());

describe('GetReconciliationSnapshot', () => {
  it('when a debit is held, then it is listed once old enough, found by its order id, and every balance matches its ledger (the chain guards keep it so)', async () => {
    const partnerId = await fundedPartner(client, 10_000);
    const orderId = newId('ord');
    await client.reserve({ orderId, partnerId, amount: 750n, description: 'France' });
    const young = await client.getReconciliationSnapshot({ heldOlderThanMs: 3_600_000n, orderIds: [orderId, newId('ord')] });
    expect(young.held.map((r) => r.orderId)).not.toContain(orderId);
    expect(young.reservations).toEqual([expect.objectContaining({ orderId, partnerId, amount: 750n, state: 'held' })]);
    const old = await client.getReconciliationSnapshot({ heldOlderThanMs: 0n, orderIds: [] });
    expect(old.held.map((r) => r.orderId)).toContain(orderId);
    expect(old.unbalanced).toEqual([]);

  });
});
