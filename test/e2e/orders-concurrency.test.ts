// Protects §6/§7 under concurrency through the gateway: concurrent duplicates make one order and one debit, and concurrent orders never spend more than the balance.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, api, asKey, withKey } from './support/client.js';
import { db, extraKeys, fundedPartner, ledgerViolations, orderBody, planWithSku } from './support/money.js';

const price = 500;
const pool = db();
let planId: string;

beforeAll(async () => {
  planId = await planWithSku('E2E-CONCURRENT', price);
});
afterAll(() => pool.end());

describe('concurrent duplicates', () => {
  for (const round of [1, 2, 3]) {
    it(`when 20 identical requests arrive at once (round ${round}), then one order and one debit, each answer 201/200 with its id or 409 REQUEST_IN_PROGRESS`, async () => {
      const partner = await fundedPartner(10_000);
      const body = orderBody(planId, `dup-${round}-${randomBytes(4).toString('hex')}`);
      const answers = await Promise.all(Array.from({ length: 20 }, () => api('/partner/orders', { body, ...withKey(partner.apiKey) })));

      const statuses = answers.map((a) => a.status);
      expect(statuses.every((s) => s === 201 || s === 200 || s === 409), statuses.join(',')).toBe(true);
      expect(statuses.filter((s) => s === 201)).toHaveLength(1);
      const ids = new Set(answers.filter((a) => a.status !== 409).map((a) => a.body.id));
      expect(ids.size).toBe(1);
      for (const answer of answers.filter((a) => a.status === 409)) expect(answer.body.code).toBe('REQUEST_IN_PROGRESS');
      for (const answer of answers.filter((a) => a.status === 200)) expect(answer.headers['idempotent-replayed']).toBe('true');

      const [orderId] = ids;
      const wallet = (await asKey(partner.apiKey, '/partner/wallet')).body;
      expect(wallet.balance).toBe(10_000 - price);
      expect(wallet.ledger.filter((e: { type: string }) => e.type === 'order_debit')).toEqual([expect.objectContaining({ orderId, amount: -price })]);
      const listed = (await asKey(partner.apiKey, '/partner/orders')).body;
      expect(listed.data.map((o: { id: string }) => o.id)).toEqual([orderId]);
      // After the race, the request is a plain replay.
      const replay = await asKey(partner.apiKey, '/partner/orders', { body });
      expect(replay.status).toBe(200);
      expect(replay.body.id).toBe(orderId);
    });
  }
});

describe('concurrent orders against one balance', () => {
  it('when 200 different orders arrive at once against a balance for 20, then exactly 20 × 201 and 180 × 402, and the balance ends at 0', async () => {
    const partner = await fundedPartner(20 * price);
    // 200 requests at once are over one key's limit (100 per 10 s in this suite): the partner spreads them over four keys the operator issued.
    const keys = [partner.apiKey, ...(await extraKeys(partner, 3))];
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => api('/partner/orders', { body: orderBody(planId), ...withKey(keys[i % keys.length]!) })),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(20);
    expect(statuses.filter((s) => s === 402)).toHaveLength(180);
    for (const answer of answers.filter((a) => a.status === 402)) expect(answer.body.code).toBe('INSUFFICIENT_BALANCE');
    expect(Math.min(...answers.filter((a) => a.status === 201).map((a) => a.body.walletBalance))).toBe(0);

    const wallet = (await asKey(partner.apiKey, '/partner/wallet')).body;
    expect(wallet.balance).toBe(0);
    expect(wallet.ledger.filter((e: { type: string }) => e.type === 'order_debit')).toHaveLength(20);
    expect((await asKey(partner.apiKey, '/partner/orders')).body.pagination.total).toBe(20);
    expect((await admin(`/orders?partnerId=${partner.id}`)).body.pagination.total).toBe(20);
    expect(await ledgerViolations(pool, partner.id)).toEqual([]);
  });
});
