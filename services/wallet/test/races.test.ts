// Protects the money invariants under concurrency: parallel orders never overdraw a wallet, one order is debited once, and one bank reference is credited once, round after round.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@esim/ids';
import { ledgerViolations } from './support/invariants.js';
import { audit, createTestEnv, fundedPartner, type TestEnv, type WalletClient } from './support/testEnv.js';

let env: TestEnv;
let client: WalletClient;
const rounds = [1, 2, 3];
/** Hundreds of calls queue on one wallet lock: allow more than the default per-call deadline. */
const slow = { deadlineMs: 30_000 };

beforeAll(async () => {
  env = await createTestEnv();
  ({ client } = await env.start());
});
afterEach(async () => expect(await ledgerViolations(env.pool)).toEqual([]));
afterAll(() => env?.cleanup());

function settle<T>(results: PromiseSettledResult<T>[]): { ok: T[]; errors: unknown[] } {
  return {
    ok: results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : [])),
    errors: results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : [])),
  };
}

describe.each(rounds)('round %i', () => {
  it('when 200 orders of 100 race against a balance of 2000, then exactly 20 are paid, 180 are INSUFFICIENT_BALANCE and the balance is 0', async () => {
    const partnerId = await fundedPartner(client, 2_000);
    const calls = Array.from({ length: 200 }, () => client.reserve({ orderId: newId('ord'), partnerId, amount: 100n, description: 'race' }, slow));
    const { ok, errors } = settle(await Promise.allSettled(calls));
    expect(ok).toHaveLength(20);
    expect(errors).toHaveLength(180);
    expect(errors.every((e) => (e as { code?: string }).code === 'INSUFFICIENT_BALANCE')).toBe(true);
    expect(new Set(ok.map((r) => r.balanceAfter))).toEqual(new Set(Array.from({ length: 20 }, (_, i) => BigInt(i * 100))));
    const wallet = await client.getWallet({ partnerId, ledgerLimit: 100 });
    expect(wallet.balance).toBe(0n);
    expect(wallet.ledger.filter((e) => e.type === 'order_debit')).toHaveLength(20);
  });

  it('when 20 Reserves of one order race, then there is one debit and every call answers its entry id', async () => {
    const partnerId = await fundedPartner(client, 1_000);
    const request = { orderId: newId('ord'), partnerId, amount: 250n, description: 'race' };
    const { ok, errors } = settle(await Promise.allSettled(Array.from({ length: 20 }, () => client.reserve(request, slow))));
    expect(errors).toEqual([]);
    expect(new Set(ok.map((r) => r.entry!.id)).size).toBe(1);
    expect(ok.filter((r) => !r.replayed)).toHaveLength(1);
    expect(ok.every((r) => r.balanceAfter === 750n)).toBe(true);
    expect(await env.query(`SELECT id FROM wallet.ledger_entries WHERE order_id = $1`, [request.orderId])).toHaveLength(1);
    expect((await client.getWallet({ partnerId })).balance).toBe(750n);
  });

  it('when 10 TopUps with one reference race, then one credit is recorded and one wallet.credited event is in the outbox', async () => {
    const partnerId = newId('ptn');
    const request = { partnerId, amount: 5_000n, reference: `WIRE-${partnerId}`, audit };
    const { ok, errors } = settle(await Promise.allSettled(Array.from({ length: 10 }, () => client.topUp(request, slow))));
    expect(errors).toEqual([]);
    expect(ok.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(ok.map((r) => r.entry!.id)).size).toBe(1);
    expect(ok.every((r) => r.balance === 5_000n)).toBe(true);
    const credited = await env.query(
      `SELECT 1 FROM wallet.outbox WHERE subject = 'partner.notification' AND payload->'data'->>'partnerId' = $1 AND payload->'data'->>'type' = 'wallet.credited'`,
      [partnerId],
    );
    expect(credited).toHaveLength(1);
    expect((await client.getWallet({ partnerId })).balance).toBe(5_000n);
  });
});
