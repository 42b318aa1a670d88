// Protects §6's wallet through the gateway: the partner's view and ledger paging, the ledger invariants, operator top-ups (idempotent by reference), adjustments that never go below 0, their validation, audit and the operator's views.
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { admin, asKey, expectInvalidField, expectProblem, onboardPartner, until, type Onboarded } from './support/client.js';
import { fundedPartner, orderBody, planWithSku } from './support/money.js';

interface Entry {
  id: string;
  type: string;
  amount: number;
  balanceAfter: number;
  orderId: string | null;
  reference: string | null;
  description: string | null;
  createdAt: string;
}

const entryKeys = ['id', 'type', 'amount', 'balanceAfter', 'orderId', 'reference', 'description', 'createdAt', 'livemode'].sort();
const unknownPartners = ['ptn_01jzzzzzzzzzzzzzzzzzzzzzzz', 'nonsense', 'ord_01jzzzzzzzzzzzzzzzzzzzzzzz'];
const reference = () => `WIRE-${randomBytes(5).toString('hex')}`;
const topUp = (partnerId: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  admin(`/partners/${partnerId}/wallet/topups`, { body, headers });
const adjust = (partnerId: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  admin(`/partners/${partnerId}/wallet/adjustments`, { body, headers });

/** §6 invariants on a complete ledger, newest first: balanceAfter chains and the balance is the sum. */
function expectChained(ledger: Entry[], balance: number): void {
  expect(ledger.reduce((sum, e) => sum + e.amount, 0)).toBe(balance);
  expect(ledger[0]?.balanceAfter ?? 0).toBe(balance);
  ledger.forEach((entry, i) => {
    const before = ledger[i + 1]?.balanceAfter ?? 0;
    expect(entry.balanceAfter, `${entry.id} after ${ledger[i + 1]?.id}`).toBe(before + entry.amount);
    expect(entry.balanceAfter).toBeGreaterThanOrEqual(0);
  });
}

async function auditEntry(action: string, partnerId: string, requestId: string) {
  return until(async () => {
    const { body } = await admin('/audit?limit=100');
    return (body.data as Array<{ action: string; target: string; requestId: string }>).find((e) => e.action === action && e.target === partnerId && e.requestId === requestId);
  }, `${action} audit entry`);
}

describe('the partner’s wallet', () => {
  it('when a partner never had money, then balance 0, the deployment currency and no entries', async () => {
    const partner = await onboardPartner();
    expect((await asKey(partner.apiKey, '/partner/wallet')).body).toEqual({ balance: 0, currency: 'USD', ledger: [], livemode: true });
    expect((await asKey(partner.apiKey, '/partner/wallet/ledger')).body).toEqual({ data: [], pagination: { page: 1, limit: 20, total: 0, totalPages: 0 } });
  });

  it('when money moves every way, then the ledger is newest first, chains balanceAfter and sums to the balance', async () => {
    const partner = await fundedPartner(5_000);
    const planId = await planWithSku('E2E-WALLET', 1_200);
    expect((await adjust(partner.id, { amount: -300, reason: 'fee correction' })).status).toBe(201);
    const order = await asKey(partner.apiKey, '/partner/orders', { body: orderBody(planId) });
    expect(order.status).toBe(201);
    expect((await adjust(partner.id, { amount: 50, reason: 'goodwill' })).status).toBe(201);

    const wallet = (await asKey(partner.apiKey, '/partner/wallet')).body as { balance: number; ledger: Entry[] };
    expect(wallet.balance).toBe(5_000 - 300 - 1_200 + 50);
    expect(wallet.ledger.map((e) => [e.type, e.amount])).toEqual([
      ['adjustment', 50],
      ['order_debit', -1_200],
      ['adjustment', -300],
      ['topup', 5_000],
    ]);
    for (const entry of wallet.ledger) expect(Object.keys(entry).sort()).toEqual(entryKeys);
    expect(wallet.ledger[1]).toMatchObject({ orderId: order.body.id, description: expect.stringContaining('E2E-WALLET'), reference: null });
    expect(wallet.ledger[2]).toMatchObject({ description: 'fee correction', orderId: null });
    expectChained(wallet.ledger, wallet.balance);
  });

  it('when the ledger has 52 entries, then the wallet shows the 50 newest and the ledger pages through all of them', async () => {
    const partner = await onboardPartner();
    for (let i = 1; i <= 52; i++) expect((await topUp(partner.id, { amount: i, reference: `R-${i}` })).status).toBe(201);
    const wallet = (await asKey(partner.apiKey, '/partner/wallet')).body as { balance: number; ledger: Entry[] };
    expect(wallet.balance).toBe((52 * 53) / 2);
    expect(wallet.ledger.map((e) => e.reference)).toEqual(Array.from({ length: 50 }, (_, i) => `R-${52 - i}`));

    const pages: Entry[] = [];
    for (let page = 1; page <= 3; page++) {
      const answer = await asKey(partner.apiKey, `/partner/wallet/ledger?page=${page}&limit=20`);
      expect(answer.body.pagination).toEqual({ page, limit: 20, total: 52, totalPages: 3 });
      pages.push(...answer.body.data);
    }
    expect(pages.map((e) => e.reference)).toEqual(Array.from({ length: 52 }, (_, i) => `R-${52 - i}`));
    expectChained(pages, wallet.balance);
    expect((await asKey(partner.apiKey, '/partner/wallet/ledger?page=4&limit=20')).body.data).toEqual([]);
    for (const [query, path] of [['limit=0', 'limit'], ['limit=101', 'limit'], ['page=0', 'page'], ['page=abc', 'page'], ['from=1', 'from']] as const) {
      expectInvalidField(await asKey(partner.apiKey, `/partner/wallet/ledger?${query}`), path);
    }
  });
});

describe('operator top-ups', () => {
  let partner: Onboarded;
  beforeAll(async () => {
    partner = await onboardPartner();
  });

  it('when an operator tops up, then 201 with the topup entry and the new balance, audited with the operator', async () => {
    const ref = reference();
    const answer = await topUp(partner.id, { amount: 10_000, reference: ref, note: 'March prepayment' }, { 'x-operator': 'ops-alice' });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body.balance).toBe(10_000);
    expect(Object.keys(answer.body.entry).sort()).toEqual(entryKeys);
    expect(answer.body.entry).toMatchObject({ id: expect.stringMatching(/^led_[0-9a-z]{26}$/), type: 'topup', amount: 10_000, balanceAfter: 10_000, orderId: null, reference: ref });
    const audited = await auditEntry('wallet.topup', partner.id, answer.headers['x-request-id'] as string);
    expect(audited).toMatchObject({ operator: 'admin-token' });

    // The same reference again, even with another amount: the original entry, nothing credited.
    const again = await topUp(partner.id, { amount: 99, reference: ref });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ entry: answer.body.entry, balance: 10_000 });
    expect((await asKey(partner.apiKey, '/partner/wallet')).body.ledger).toHaveLength(1);
    // References are unique per partner, not across partners.
    const other = await onboardPartner();
    expect((await topUp(other.id, { amount: 5, reference: ref })).status).toBe(201);
  });

  it('when the amount, reference or note break their rules, then 400 naming the field and nothing is credited', async () => {
    for (const amount of [0, -1, 100_000_001, 1.5, '100', null]) expectInvalidField(await topUp(partner.id, { amount, reference: reference() }), 'amount');
    for (const ref of ['', '   ', 'r'.repeat(101), 42]) expectInvalidField(await topUp(partner.id, { amount: 1, reference: ref }), 'reference');
    expectInvalidField(await topUp(partner.id, { amount: 1, reference: reference(), note: 'n'.repeat(501) }), 'note');
    expectInvalidField(await topUp(partner.id, { amount: 1 }), 'reference');
    expectInvalidField(await topUp(partner.id, { amount: 1, reference: reference(), currency: 'USD' }), 'currency');
    const before = (await admin(`/partners/${partner.id}/wallet`)).body.balance;
    expect((await topUp(partner.id, { amount: 100_000_000, reference: 'r'.repeat(100), note: 'n'.repeat(500) })).status).toBe(201);
    expect((await admin(`/partners/${partner.id}/wallet`)).body.balance).toBe(before + 100_000_000);
  });

  it('when the partner is unknown or the id malformed, then 404 PARTNER_NOT_FOUND on every wallet route', async () => {
    for (const id of unknownPartners) {
      expectProblem(await topUp(id, { amount: 1, reference: reference() }), 404, 'PARTNER_NOT_FOUND');
      expectProblem(await adjust(id, { amount: 1, reason: 'x' }), 404, 'PARTNER_NOT_FOUND');
      expectProblem(await admin(`/partners/${id}/wallet`), 404, 'PARTNER_NOT_FOUND');
    }
  });
});

describe('operator adjustments', () => {
  it('when adjustments credit and debit, then each is a signed entry with its reason; a debit below 0 is 402 and writes nothing', async () => {
    const partner = await fundedPartner(1_000);
    const credit = await adjust(partner.id, { amount: 250, reason: 'duplicate fee refunded' }, { 'x-operator': 'ops-bob' });
    expect(credit.status, credit.text).toBe(201);
    expect(credit.body).toMatchObject({ balance: 1_250, entry: { type: 'adjustment', amount: 250, balanceAfter: 1_250, description: 'duplicate fee refunded', reference: null } });
    expect(await auditEntry('wallet.adjustment', partner.id, credit.headers['x-request-id'] as string)).toMatchObject({ operator: 'admin-token' });

    expectProblem(await adjust(partner.id, { amount: -1_251, reason: 'too much' }), 402, 'INSUFFICIENT_BALANCE');
    expect((await asKey(partner.apiKey, '/partner/wallet')).body.ledger).toHaveLength(2);
    const toZero = await adjust(partner.id, { amount: -1_250, reason: 'account closed' });
    expect(toZero.status).toBe(201);
    expect(toZero.body.balance).toBe(0);
    expectProblem(await adjust(partner.id, { amount: -1, reason: 'below zero' }), 402, 'INSUFFICIENT_BALANCE');
    const wallet = (await asKey(partner.apiKey, '/partner/wallet')).body;
    expect(wallet.balance).toBe(0);
    expectChained(wallet.ledger, 0);
  });

  it('when the amount or reason break their rules, then 400 naming the field', async () => {
    const partner = await onboardPartner();
    for (const amount of [0, 100_000_001, -100_000_001, 2.5, '5', null]) expectInvalidField(await adjust(partner.id, { amount, reason: 'r' }), 'amount');
    for (const reason of ['', '  ', 'r'.repeat(501), 3]) expectInvalidField(await adjust(partner.id, { amount: 1, reason }), 'reason');
    expectInvalidField(await adjust(partner.id, { amount: 1 }), 'reason');
    expectInvalidField(await adjust(partner.id, { amount: 1, reason: 'r', reference: 'x' }), 'reference');
    expect((await adjust(partner.id, { amount: 100_000_000, reason: 'r'.repeat(500) })).status).toBe(201);
    expect((await adjust(partner.id, { amount: -100_000_000, reason: 'undo' })).status).toBe(201);
  });
});

describe('operator views', () => {
  it('when an operator reads a partner and its wallet, then the balance and the §6 view match what the partner sees', async () => {
    const partner = await fundedPartner(7_700);
    await adjust(partner.id, { amount: -700, reason: 'correction' });
    const partnerView = (await asKey(partner.apiKey, '/partner/wallet')).body;
    expect((await admin(`/partners/${partner.id}/wallet`)).body).toEqual(partnerView);
    const detail = await admin(`/partners/${partner.id}`);
    expect(detail.status).toBe(200);
    expect(detail.body.walletBalance).toBe(7_000);
    const fresh = await onboardPartner();
    expect((await admin(`/partners/${fresh.id}`)).body.walletBalance).toBe(0);
  });
});
