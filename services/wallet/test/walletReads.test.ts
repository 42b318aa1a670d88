// Protects what partners and operators read: GetWallet's balance and newest-first entries, ListLedger's paging bounds and totals.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@esim/ids';
import { ledgerViolations } from './support/invariants.js';
import { audit, createTestEnv, fundedPartner, type TestEnv, type WalletClient } from './support/testEnv.js';

let env: TestEnv;
let client: WalletClient;
/** A partner with 60 entries: a top-up of 10,000 then 59 orders of 10 each. */
let busy: string;

beforeAll(async () => {
  env = await createTestEnv();
  ({ client } = await env.start());
  busy = await fundedPartner(client, 10_000);
  for (let i = 0; i < 59; i++) await client.reserve({ orderId: newId('ord'), partnerId: busy, amount: 10n, description: `order ${i}` });
});
afterEach(async () => expect(await ledgerViolations(env.pool)).toEqual([]));
afterAll(() => env?.cleanup());

describe('GetWallet', () => {
  it('when the partner never had money, then the balance is 0 in the deployment currency with an empty ledger', async () => {
    const partnerId = newId('ptn');
    expect(await client.getWallet({ partnerId })).toMatchObject({ partnerId, balance: 0n, currency: 'USD', ledger: [] });
  });

  it('when no limit is asked, then the 50 most recent entries come newest first, the first carrying the balance', async () => {
    const wallet = await client.getWallet({ partnerId: busy });
    expect(wallet.balance).toBe(9_410n);
    expect(wallet.ledger).toHaveLength(50);
    expect(wallet.ledger[0]).toMatchObject({ type: 'order_debit', description: 'order 58', balanceAfter: 9_410n });
    expect(wallet.ledger.map((entry) => entry.balanceAfter)).toEqual(Array.from({ length: 50 }, (_, i) => BigInt(9_410 + 10 * i)));
  });

  it('when a limit is asked, then that many entries come; out of 1–100 it is a VALIDATION_ERROR on ledgerLimit', async () => {
    expect((await client.getWallet({ partnerId: busy, ledgerLimit: 3 })).ledger.map((e) => e.description)).toEqual(['order 58', 'order 57', 'order 56']);
    for (const ledgerLimit of [-1, 101]) {
      await expect(client.getWallet({ partnerId: busy, ledgerLimit }), String(ledgerLimit)).rejects.toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ path: 'ledgerLimit' }] });
    }
  });

  it('when the partner id is malformed, then it is a VALIDATION_ERROR on partnerId', async () => {
    await expect(client.getWallet({ partnerId: 'nobody' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ path: 'partnerId' }] });
  });
});

describe('ListLedger', () => {
  it('when paging through, then pages of the default 20 cover every entry once, newest first, and total counts them all', async () => {
    const seen: string[] = [];
    for (const page of [1, 2, 3]) {
      const response = await client.listLedger({ partnerId: busy, page: { page, limit: 0 } });
      expect(response.total).toBe(60);
      expect(response.entries).toHaveLength(20);
      seen.push(...response.entries.map((entry) => entry.id));
    }
    expect(new Set(seen).size).toBe(60);
    const all = await client.listLedger({ partnerId: busy, page: { page: 1, limit: 100 } });
    expect(all.entries.map((entry) => entry.id)).toEqual(seen);
    expect(all.entries.at(-1)).toMatchObject({ type: 'topup', balanceAfter: 10_000n });
  });

  it('when the page is past the end, then it is empty with the total', async () => {
    expect(await client.listLedger({ partnerId: busy, page: { page: 4, limit: 20 } })).toMatchObject({ entries: [], total: 60 });
    expect(await client.listLedger({ partnerId: busy, page: { page: 2_147_483_647, limit: 100 } })).toMatchObject({ entries: [], total: 60 });
    expect(await client.listLedger({ partnerId: newId('ptn') })).toMatchObject({ entries: [], total: 0 });
  });

  it.each([
    ['page', { page: -1, limit: 20 }],
    ['limit', { page: 1, limit: 101 }],
    ['limit', { page: 1, limit: -5 }],
  ] as const)('when %s is out of range, then it is a VALIDATION_ERROR naming it', async (path, page) => {
    await expect(client.listLedger({ partnerId: busy, page })).rejects.toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ path }] });
  });

  it('when another partner moves money, then this partner\'s ledger does not show it', async () => {
    const other = await fundedPartner(client, 77);
    await client.adjust({ partnerId: other, amount: 1n, reason: 'other', audit });
    expect((await client.listLedger({ partnerId: busy })).total).toBe(60);
    expect((await client.listLedger({ partnerId: other })).entries.map((e) => e.balanceAfter)).toEqual([78n, 77n]);
  });
});
