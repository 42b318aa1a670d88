// Protects §9 wallet.balance_low: a debit that takes the wallet below the partner's lowBalanceThreshold queues one event in the debit's own transaction, and the next one only after a credit lifts the balance back to the threshold.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@esim/ids';
import { ledgerViolations } from './support/invariants.js';
import { audit, createTestEnv, type TestEnv, type WalletClient } from './support/testEnv.js';

let env: TestEnv;
let client: WalletClient;

beforeAll(async () => {
  env = await createTestEnv();
  ({ client } = await env.start());
});
afterEach(async () => expect(await ledgerViolations(env.pool)).toEqual([]));
afterAll(() => env?.cleanup());

/** The partner's balance_low events in the wallet's outbox (written by the debit's transaction: the outbox row commits with it). */
function lowBalanceEvents(partnerId: string) {
  return env.query<{ data: unknown }>(
    `SELECT o.payload->'data'->'payload' AS data
     FROM wallet.outbox o WHERE o.payload->'data'->>'partnerId' = $1 AND o.payload->'data'->>'type' = 'wallet.balance_low' ORDER BY o.seq`,
    [partnerId],
  );
}

const debit = (partnerId: string, amount: number) => client.reserve({ orderId: newId('ord'), partnerId, amount: BigInt(amount), description: 'France 5 GB' });
const credit = (partnerId: string, amount: number) => client.topUp({ partnerId, amount: BigInt(amount), reference: newId('req'), note: '', audit });

describe('lowBalanceThreshold', () => {
  it('when debits cross the threshold, then one wallet.balance_low per crossing, re-armed only by a credit back to the threshold', async () => {
    const partnerId = newId('ptn');
    expect(await client.setLowBalanceThreshold({ partnerId, threshold: 5_000n })).toEqual(expect.objectContaining({ threshold: 5_000n }));
    await credit(partnerId, 10_000);
    await debit(partnerId, 3_000); // 7000: above
    expect(await lowBalanceEvents(partnerId)).toEqual([]);
    await debit(partnerId, 3_000); // 4000: crosses
    await debit(partnerId, 1_000); // 3000: still below, already announced
    await credit(partnerId, 500); // 3500: still below, not re-armed
    await debit(partnerId, 500); // 3000
    expect(await lowBalanceEvents(partnerId)).toEqual([{ data: { walletBalance: 4_000, threshold: 5_000 } }]);
    await credit(partnerId, 2_000); // 5000: back at the threshold, re-armed
    await debit(partnerId, 1); // 4999: crosses again
    expect((await lowBalanceEvents(partnerId)).map((event) => event.data)).toEqual([
      { walletBalance: 4_000, threshold: 5_000 },
      { walletBalance: 4_999, threshold: 5_000 },
    ]);
  });

  it('when the threshold is cleared or never set, then no debit announces anything; a negative or fractional one is VALIDATION_ERROR naming lowBalanceThreshold', async () => {
    const partnerId = newId('ptn');
    await credit(partnerId, 1_000);
    await debit(partnerId, 900);
    await client.setLowBalanceThreshold({ partnerId, threshold: 2_000n });
    expect((await client.getLowBalanceThreshold({ partnerId })).threshold).toBe(2_000n);
    await client.setLowBalanceThreshold({ partnerId });
    expect((await client.getLowBalanceThreshold({ partnerId })).threshold).toBeUndefined();
    await debit(partnerId, 50);
    expect(await lowBalanceEvents(partnerId)).toEqual([]);
    await expect(client.setLowBalanceThreshold({ partnerId, threshold: -1n })).rejects.toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ path: 'lowBalanceThreshold' }] });
  });

  it('when a threshold is set for a partner without a wallet, then it is kept and its first debit below it is announced', async () => {
    const partnerId = newId('ptn');
    await client.setLowBalanceThreshold({ partnerId, threshold: 100n });
    expect((await client.getLowBalanceThreshold({ partnerId })).threshold).toBe(100n);
    await credit(partnerId, 150);
    await debit(partnerId, 100);
    expect((await lowBalanceEvents(partnerId)).map((event) => event.data)).toEqual([{ walletBalance: 50, threshold: 100 }]);
  });
});
