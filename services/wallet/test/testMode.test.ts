// Protects test mode in the wallet (contract §14): a test account (`ptn_X_test`) has a wallet of its own that only
// CreditTestWallet credits without an operator, its events say livemode false, the reconciliation never reads it,
// and a test-data deletion removes every row of it (idempotently) while the partner's live wallet stays whole.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { accountIdOf, newId } from '@esim/ids';
import type { Logger } from '@esim/telemetry';
import { deleteTestAccount } from '../src/domain/deleteTestAccount.js';
import { ledgerViolations } from './support/invariants.js';
import { audit, createTestEnv, eventually, type TestEnv, type WalletClient } from './support/testEnv.js';

let env: TestEnv;
let client: WalletClient;

beforeAll(async () => {
  env = await createTestEnv();
  ({ client } = await env.start());
});
afterEach(async () => expect(await ledgerViolations(env.pool)).toEqual([]));
afterAll(() => env?.cleanup());

/** A partner with live money (an operator top-up) and test money (a test credit), one held order in each mode. */
async function partnerInBothModes(): Promise<{ live: string; test: string; liveOrder: string; testOrder: string }> {
  const live = newId('ptn');
  const test = accountIdOf(live, false);
  await client.topUp({ partnerId: live, amount: 5_000n, reference: 'WIRE-1', audit });
  await client.creditTestWallet({ partnerId: test, amount: 3_000n });
  const liveOrder = newId('ord');
  const testOrder = newId('ord');
  await client.reserve({ orderId: liveOrder, partnerId: live, amount: 700n, description: 'France' });
  await client.reserve({ orderId: testOrder, partnerId: test, amount: 900n, description: 'France' });
  await client.setLowBalanceThreshold({ partnerId: test, threshold: 100n });
  return { live, test, liveOrder, testOrder };
}

const rowsOf = async (accountId: string) => ({
  wallets: (await env.query('SELECT 1 FROM wallet.wallets WHERE partner_id = $1', [accountId])).length,
  entries: (await env.query('SELECT 1 FROM wallet.ledger_entries WHERE partner_id = $1', [accountId])).length,
  reservations: (await env.query('SELECT 1 FROM wallet.reservations WHERE partner_id = $1', [accountId])).length,
});

const silent = { info: () => {}, warn: () => {}, error: () => {} } as unknown as Logger;

describe('CreditTestWallet', () => {
  it('when a test account is credited, then a topup entry is written with wallet.credited saying livemode false, and no audit entry', async () => {
    const test = accountIdOf(newId('ptn'), false);
    const first = await client.creditTestWallet({ partnerId: test, amount: 2_500n });
    const second = await client.creditTestWallet({ partnerId: test, amount: 500n });
    expect(first).toMatchObject({ created: true, balance: 2_500n, entry: { type: 'topup', amount: 2_500n, balanceAfter: 2_500n, description: 'Test credit' } });
    expect(first.entry!.reference).toMatch(/^test-credit-[0-9a-f-]{36}$/);
    expect(second).toMatchObject({ balance: 3_000n, entry: { amount: 500n, balanceAfter: 3_000n } });
    expect(await client.getWallet({ partnerId: test, ledgerLimit: 50 })).toMatchObject({ partnerId: test, balance: 3_000n });

    const outbox = await env.query<{ subject: string; payload: { data: { type: string; payload: { ledgerEntry: Record<string, unknown> } } } }>(
      `SELECT subject, payload FROM wallet.outbox WHERE payload->'data'->>'partnerId' = $1 OR payload->'data'->>'target' = $1 ORDER BY seq`,
      [test],
    );
    // On test mode's lane (@esim/events lanes.ts): only test-lane durables read it.
    expect(outbox.map((row) => [row.subject, row.payload.data.type])).toEqual([
      ['partner.notification.test', 'wallet.credited'],
      ['partner.notification.test', 'wallet.credited'],
    ]);
    expect(outbox[0]!.payload.data.payload.ledgerEntry).toMatchObject({ id: first.entry!.id, type: 'topup', amount: 2_500, livemode: false });
  });

  it('when a live account is named, then TEST_MODE_ONLY and nothing is written', async () => {
    const live = newId('ptn');
    await expect(client.creditTestWallet({ partnerId: live, amount: 100n })).rejects.toMatchObject({ code: 'TEST_MODE_ONLY' });
    expect(await rowsOf(live)).toEqual({ wallets: 0, entries: 0, reservations: 0 });
  });

  it.each([
    ['amount 0', { amount: 0n }, 'amount'],
    ['amount above 10^8', { amount: 100_000_001n }, 'amount'],
    ['a malformed account', { partnerId: 'ptn_nope_test' }, 'partnerId'],
  ])('when %s, then VALIDATION_ERROR names the field', async (_case, overrides, path) => {
    const request = { partnerId: accountIdOf(newId('ptn'), false), amount: 100n, ...overrides };
    await expect(client.creditTestWallet(request)).rejects.toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ path }] });
  });
});

describe('a test account in the other RPCs', () => {
  it('when a test account reserves, refunds, lists and sets a threshold, then each works on its own wallet and the live one is untouched', async () => {
    const { live, test, testOrder } = await partnerInBothModes();
    expect((await client.getWallet({ partnerId: test, ledgerLimit: 50 })).balance).toBe(2_100n);
    expect((await client.getWallet({ partnerId: live, ledgerLimit: 50 })).balance).toBe(4_300n);
    await expect(client.reserve({ orderId: newId('ord'), partnerId: test, amount: 5_000n, description: 'x' })).rejects.toMatchObject({ code: 'INSUFFICIENT_BALANCE' });
    const refund = await client.refundOrder({ orderId: testOrder, partnerId: test, reason: 'cancelled' });
    expect(refund.balanceAfter).toBe(3_000n);
    expect((await client.listLedger({ partnerId: test })).total).toBe(3);
    expect((await client.getLowBalanceThreshold({ partnerId: test })).threshold).toBe(100n);
    expect((await client.getLowBalanceThreshold({ partnerId: live })).threshold).toBeUndefined();
  });
});

describe('GetReconciliationSnapshot', () => {
  it('when a test account holds an old debit, then the snapshot lists only the live one: test money is never reconciled', async () => {
    const { liveOrder, testOrder } = await partnerInBothModes();
    const held = (await client.getReconciliationSnapshot({ heldOlderThanMs: 0n, orderIds: [] })).held.map((r) => r.orderId);
    expect(held).toContain(liveOrder);
    expect(held).not.toContain(testOrder);
  });
});

describe('partners.test_data.delete_requested', () => {
  it('when a partner wipes its test data, then its test wallet, ledger, reservations and threshold are gone, a redelivery changes nothing, and the live wallet is whole', async () => {
    const { live, test, liveOrder } = await partnerInBothModes();
    const liveBefore = await client.getWallet({ partnerId: live, ledgerLimit: 50 });
    const eventId = await env.publish('partners.test_data.delete_requested', { accountId: test, requestedAt: new Date().toISOString() });
    const processed = () => env.query('SELECT 1 FROM wallet.processed_events WHERE consumer = $1 AND event_id = $2', ['wallet_test_data_deleted', eventId]);
    expect(await eventually(async () => (await processed()).length === 1, 10_000)).toBe(true);
    expect(await rowsOf(test)).toEqual({ wallets: 0, entries: 0, reservations: 0 });
    expect(await client.getWallet({ partnerId: test, ledgerLimit: 50 })).toMatchObject({ balance: 0n, ledger: [] });
    expect((await client.getLowBalanceThreshold({ partnerId: test })).threshold).toBeUndefined();

    // A redelivery (a new message of the same event) and a second request find nothing to delete.
    await env.publish('partners.test_data.delete_requested', { accountId: test, requestedAt: new Date().toISOString() }, { id: eventId, msgId: newId('evt') });
    const again = await env.publish('partners.test_data.delete_requested', { accountId: test, requestedAt: new Date().toISOString() });
    expect(await eventually(async () => (await env.query('SELECT 1 FROM wallet.processed_events WHERE event_id = $1', [again])).length === 1, 10_000)).toBe(true);

    expect(await client.getWallet({ partnerId: live, ledgerLimit: 50 })).toEqual(liveBefore);
    expect((await client.getReservation({ orderId: liveOrder })).state).toBe('held');
    // The test account starts again from an empty wallet.
    expect((await client.creditTestWallet({ partnerId: test, amount: 10n })).balance).toBe(10n);
  });

  it('when the deletion names a live account, then it is refused and nothing is deleted', async () => {
    const { live } = await partnerInBothModes();
    const before = await rowsOf(live);
    const outcome = await env.pool.connect().then(async (db) => {
      try {
        await db.query('BEGIN');
        const result = await deleteTestAccount(db, silent, live);
        await db.query('COMMIT');
        return result;
      } finally {
        db.release();
      }
    });
    expect(outcome).toBe('refused');
    expect(await rowsOf(live)).toEqual(before);
  });

  it('when anything else deletes ledger entries, then the database refuses: live ones always, test ones outside a wipe of that very account', async () => {
    const { live, test } = await partnerInBothModes();
    await expect(env.query('DELETE FROM wallet.ledger_entries WHERE partner_id = $1', [live])).rejects.toThrow(/immutable/);
    await expect(env.query('DELETE FROM wallet.ledger_entries WHERE partner_id = $1', [test])).rejects.toThrow(/immutable/);
    const db = await env.pool.connect();
    try {
      await db.query('BEGIN');
      // A wipe that names the live account cannot delete its entries either.
      await db.query(`SELECT set_config('wallet.wipe_account', $1, true)`, [live]);
      await expect(db.query('DELETE FROM wallet.ledger_entries WHERE partner_id = $1', [live])).rejects.toThrow(/immutable/);
      await db.query('ROLLBACK');
    } finally {
      db.release();
    }
    expect((await rowsOf(live)).entries).toBe(2);
  });
});
