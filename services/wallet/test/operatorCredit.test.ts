// Protects operator money movements: top-ups credit once per bank reference and announce wallet.credited, adjustments never take a wallet below zero, and both are audited in the same transaction.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@esim/ids';
import { ledgerViolations } from './support/invariants.js';
import { audit, createTestEnv, fundedPartner, type TestEnv, type WalletClient } from './support/testEnv.js';

let env: TestEnv;
let client: WalletClient;

beforeAll(async () => {
  env = await createTestEnv();
  ({ client } = await env.start());
});
afterEach(async () => expect(await ledgerViolations(env.pool)).toEqual([]));
afterAll(() => env?.cleanup());

interface OutboxRow {
  subject: string;
  payload: { type: string; data: Record<string, unknown> };
  same_tx: boolean;
}

/** Outbox rows about a partner, and whether each was written by the transaction of that partner's newest entry (now() is per transaction). */
function outboxFor(partnerId: string): Promise<OutboxRow[]> {
  return env.query<OutboxRow>(
    `SELECT o.subject, o.payload, o.created_at = w.updated_at AS same_tx
     FROM wallet.outbox o JOIN wallet.wallets w ON w.partner_id = $1
     WHERE o.payload->'data'->>'partnerId' = $1 OR o.payload->'data'->>'target' = $1
     ORDER BY o.seq`,
    [partnerId],
  );
}

describe('TopUp', () => {
  it('when an operator credits a new reference, then a topup entry is created with the note, and wallet.credited and audit.recorded are written with it', async () => {
    const partnerId = newId('ptn');
    const result = await client.topUp({ partnerId, amount: 10_000n, reference: 'WIRE-2026-0042', note: 'March prepayment', audit });
    expect(result).toMatchObject({
      created: true,
      balance: 10_000n,
      entry: { type: 'topup', amount: 10_000n, balanceAfter: 10_000n, reference: 'WIRE-2026-0042', description: 'March prepayment' },
    });
    expect(result.entry!.orderId).toBeUndefined();
    const rows = await outboxFor(partnerId);
    expect(rows.map((row) => [row.subject, row.same_tx])).toEqual([
      ['partner.notification', true],
      ['audit.recorded', true],
    ]);
    expect(rows[0]!.payload.data).toEqual({
      partnerId,
      type: 'wallet.credited',
      orderId: null,
      payload: {
        ledgerEntry: {
          id: result.entry!.id,
          type: 'topup',
          amount: 10_000,
          balanceAfter: 10_000,
          orderId: null,
          reference: 'WIRE-2026-0042',
          description: 'March prepayment',
          createdAt: result.entry!.createdAt,
          livemode: true,
        },
        walletBalance: 10_000,
      },
    });
    expect(rows[1]!.payload.data).toMatchObject({
      action: 'wallet.topup',
      target: partnerId,
      operator: 'alice',
      requestId: 'req_test',
      details: { amount: 10_000, reference: 'WIRE-2026-0042', ledgerEntryId: result.entry!.id },
    });
  });

  it('when the same reference is sent again, then the original entry is answered with created=false, the current balance, and nothing is credited or announced', async () => {
    const partnerId = await fundedPartner(client, 0);
    const first = await client.topUp({ partnerId, amount: 2_000n, reference: 'WIRE-1', audit });
    await client.adjust({ partnerId, amount: -500n, reason: 'fee', audit });
    const again = await client.topUp({ partnerId, amount: 9_999n, reference: 'WIRE-1', audit });
    expect(again).toMatchObject({ created: false, balance: 1_500n, entry: first.entry });
    expect((await outboxFor(partnerId)).filter((row) => row.subject === 'partner.notification')).toHaveLength(1);
  });

  it('when another partner uses the same reference, then it is credited: references are unique per partner', async () => {
    const a = await client.topUp({ partnerId: newId('ptn'), amount: 100n, reference: 'SHARED-REF', audit });
    const b = await client.topUp({ partnerId: newId('ptn'), amount: 100n, reference: 'SHARED-REF', audit });
    expect([a.created, b.created]).toEqual([true, true]);
  });

  it.each([
    ['amount', '0', { amount: 0n }],
    ['amount', 'negative', { amount: -100n }],
    ['amount', 'over 100,000,000', { amount: 100_000_001n }],
    ['reference', 'empty', { reference: '' }],
    ['reference', 'blank', { reference: '   ' }],
    ['reference', '101 characters', { reference: 'R'.repeat(101) }],
    ['note', '501 characters', { note: 'n'.repeat(501) }],
    ['partnerId', 'malformed', { partnerId: 'ptn_1' }],
  ] as const)('when %s is %s, then it is a VALIDATION_ERROR naming it and nothing is credited', async (path, _label, overrides) => {
    const partnerId = newId('ptn');
    await expect(client.topUp({ partnerId, amount: 100n, reference: 'WIRE-X', audit, ...overrides })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ path }],
    });
    expect(await env.query('SELECT 1 FROM wallet.wallets WHERE partner_id = $1', [partnerId])).toEqual([]);
  });

  it('when the amount is exactly 100,000,000, then it is credited', async () => {
    await expect(client.topUp({ partnerId: newId('ptn'), amount: 100_000_000n, reference: 'MAX', audit })).resolves.toMatchObject({ created: true, balance: 100_000_000n });
  });
});

describe('Adjust', () => {
  it('when an operator corrects with a negative amount the balance covers, then an adjustment entry with the reason is recorded and audited', async () => {
    const partnerId = await fundedPartner(client, 1_000);
    const result = await client.adjust({ partnerId, amount: -1_000n, reason: 'duplicate wire', audit });
    expect(result).toMatchObject({ balance: 0n, entry: { type: 'adjustment', amount: -1_000n, balanceAfter: 0n, description: 'duplicate wire' } });
    const rows = await outboxFor(partnerId);
    expect(rows.at(-1)).toMatchObject({
      subject: 'audit.recorded',
      same_tx: true,
      payload: { data: { action: 'wallet.adjustment', target: partnerId, details: { amount: -1_000, reason: 'duplicate wire', ledgerEntryId: result.entry!.id } } },
    });
    expect(rows.filter((row) => row.subject === 'partner.notification')).toHaveLength(1);
  });

  it('when the adjustment would take the balance below 0, then it is INSUFFICIENT_BALANCE and nothing is written', async () => {
    const partnerId = await fundedPartner(client, 1_000);
    const before = await outboxFor(partnerId);
    await expect(client.adjust({ partnerId, amount: -1_001n, reason: 'too much', audit })).rejects.toMatchObject({
      code: 'INSUFFICIENT_BALANCE',
      message: 'Wallet balance 1000 cannot take an adjustment of -1001 (USD cents): the balance may not go below 0.',
    });
    expect((await client.getWallet({ partnerId })).ledger).toHaveLength(1);
    expect(await outboxFor(partnerId)).toHaveLength(before.length);
  });

  it('when a positive adjustment is the partner\'s first movement, then the wallet is created with it; a negative one is refused without a wallet', async () => {
    const credited = newId('ptn');
    await expect(client.adjust({ partnerId: credited, amount: 250n, reason: 'goodwill', audit })).resolves.toMatchObject({ balance: 250n });
    const debited = newId('ptn');
    await expect(client.adjust({ partnerId: debited, amount: -1n, reason: 'oops', audit })).rejects.toMatchObject({ code: 'INSUFFICIENT_BALANCE' });
    expect(await env.query('SELECT 1 FROM wallet.wallets WHERE partner_id = $1', [debited])).toEqual([]);
  });

  it.each([
    ['amount', '0', { amount: 0n }],
    ['amount', 'over 100,000,000', { amount: 100_000_001n }],
    ['amount', 'under -100,000,000', { amount: -100_000_001n }],
    ['reason', 'empty', { reason: '' }],
    ['reason', '501 characters', { reason: 'r'.repeat(501) }],
  ] as const)('when %s is %s, then it is a VALIDATION_ERROR naming it', async (path, _label, overrides) => {
    const partnerId = await fundedPartner(client, 1_000);
    await expect(client.adjust({ partnerId, amount: 5n, reason: 'fix', audit, ...overrides })).rejects.toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ path }] });
    expect((await client.getWallet({ partnerId })).balance).toBe(1_000n);
  });
});
