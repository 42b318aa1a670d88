// Protects §7's order creation through the gateway: the 201 answer and its debit, each refusal (402, 422, 403) leaving the wallet untouched, idempotent replays and conflicts, and per-tenant ids.
import { beforeAll, describe, expect, it } from 'vitest';
import { admin, asKey, expectProblem, onboardPartner, until, type Answer, type Onboarded } from './support/client.js';
import { fundedPartner, orderBody, planWithSku } from './support/money.js';

const orderViewKeys = ['id', 'clientRequestId', 'kind', 'iccid', 'planId', 'planName', 'status', 'price', 'currency', 'email', 'phoneNumber', 'esim', 'failureReason', 'createdAt', 'updatedAt', 'quantity', 'unitPrice', 'esims', 'refundedAmount', 'livemode'];
const timestamp = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
const floorPrice = 755;

let planId: string;
beforeAll(async () => {
  planId = await planWithSku('E2E-ORDERS', floorPrice);
});

const order = (key: string, body: unknown) => asKey(key, '/partner/orders', { body });
const wallet = async (key: string) => (await asKey(key, '/partner/wallet')).body as { balance: number; ledger: Array<{ type: string; amount: number; orderId: string | null }> };
const orderCount = async (key: string) => (await asKey(key, '/partner/orders')).body.pagination.total as number;

/** The partner's catalog price of `planId`, as GET /partner/catalog shows it. */
async function catalogPrice(key: string, id: string): Promise<number> {
  for (let page = 1; ; page++) {
    const answer = await asKey(key, `/partner/catalog?country=FR&limit=100&page=${page}`);
    const plan = (answer.body.data as Array<{ id: string; wholesalePrice: number }>).find((p) => p.id === id);
    if (plan) return plan.wholesalePrice;
    if (page >= answer.body.pagination.totalPages) throw new Error(`plan ${id} is not in the catalog`);
  }
}

describe('placing an order', () => {
  for (const [tier, expected] of [
    ['standard', floorPrice],
    ['premium', 831],
    ['enterprise', 906],
  ] as const) {
    it(`when ${tier === 'enterprise' ? 'an' : 'a'} ${tier} partner orders, then 201 with the §7 view and walletBalance, charged the catalog price of its tier`, async () => {
      const partner = await fundedPartner(10_000, tier);
      const shown = await catalogPrice(partner.apiKey, planId);
      expect(shown).toBe(expected);
      const body = orderBody(planId);
      const answer = await order(partner.apiKey, body);
      expect(answer.status, answer.text).toBe(201);
      expect(answer.headers['idempotent-replayed']).toBeUndefined();
      expect(Object.keys(answer.body).sort()).toEqual([...orderViewKeys, 'walletBalance'].sort());
      expect(answer.body).toMatchObject({
        id: expect.stringMatching(/^ord_[0-9a-z]{26}$/),
        clientRequestId: body.clientRequestId,
        kind: 'esim',
        iccid: null,
        planId,
        planName: expect.stringContaining('E2E-ORDERS'),
        status: 'processing',
        price: shown,
        currency: 'USD',
        email: body.email,
        phoneNumber: body.phoneNumber,
        esim: null,
        failureReason: null,
        createdAt: expect.stringMatching(timestamp),
        walletBalance: 10_000 - shown,
      });
      const after = await wallet(partner.apiKey);
      expect(after.balance).toBe(10_000 - shown);
      expect(after.ledger[0]).toMatchObject({ type: 'order_debit', amount: -shown, balanceAfter: 10_000 - shown, orderId: answer.body.id });
    });
  }

  it('when the balance is one cent short, then 402 INSUFFICIENT_BALANCE, nothing is debited and no order is listed', async () => {
    const partner = await fundedPartner(floorPrice - 1);
    const body = orderBody(planId);
    const answer = await order(partner.apiKey, body);
    expectProblem(answer, 402, 'INSUFFICIENT_BALANCE');
    const after = await wallet(partner.apiKey);
    expect(after.balance).toBe(floorPrice - 1);
    expect(after.ledger.map((e) => e.type)).toEqual(['topup']);
    expect(await orderCount(partner.apiKey)).toBe(0);

    // The refused clientRequestId is free again once the wallet can pay.
    await admin(`/partners/${partner.id}/wallet/topups`, { body: { amount: 1, reference: 'TOPUP-CENT' } });
    expect((await order(partner.apiKey, body)).status).toBe(201);
    expect((await wallet(partner.apiKey)).balance).toBe(0);
  });

  it('when the plan is unknown, malformed or inactive, then 422 PLAN_NOT_AVAILABLE and nothing is debited', async () => {
    const partner = await fundedPartner(5_000);
    const inactive = await planWithSku('E2E-INACTIVE', 300);
    expect((await admin(`/plans/${inactive}`, { method: 'PATCH', body: { active: false } })).status).toBe(200);
    for (const id of ['plan_01jzzzzzzzzzzzzzzzzzzzzzzz', 'nonsense', inactive]) {
      expectProblem(await order(partner.apiKey, orderBody(id)), 422, 'PLAN_NOT_AVAILABLE');
    }
    expect((await wallet(partner.apiKey)).balance).toBe(5_000);
    expect(await orderCount(partner.apiKey)).toBe(0);
  });

  it('when the partner is suspended, then 403 ACCOUNT_NOT_ACTIVE and nothing is debited', async () => {
    const partner = await fundedPartner(5_000);
    expect((await admin(`/partners/${partner.id}/suspend`, { method: 'POST' })).status).toBe(200);
    const refused = await until(async () => {
      const answer = await order(partner.apiKey, orderBody(planId));
      return answer.status === 403 ? answer : undefined;
    }, 'the suspension to reach the gateway');
    expectProblem(refused, 403, 'ACCOUNT_NOT_ACTIVE');
    expect((await admin(`/partners/${partner.id}/wallet`)).body.balance).toBe(5_000);
    expect((await admin(`/orders?partnerId=${partner.id}`)).body.pagination.total).toBe(0);
  });
});

describe('idempotency', () => {
  let partner: Onboarded;
  let first: Answer;
  const body = orderBody('');

  beforeAll(async () => {
    partner = await fundedPartner(10_000);
    body.planId = planId;
    first = await order(partner.apiKey, body);
    expect(first.status, first.text).toBe(201);
  });

  it('when the same request is sent again, then 200 with the same order, Idempotent-Replayed: true and nothing debited again', async () => {
    const replay = await order(partner.apiKey, body);
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.id).toBe(first.body.id);
    expect(replay.body.walletBalance).toBe(10_000 - floorPrice);
    const after = await wallet(partner.apiKey);
    expect(after.balance).toBe(10_000 - floorPrice);
    expect(after.ledger.filter((e) => e.type === 'order_debit')).toHaveLength(1);
    expect(await orderCount(partner.apiKey)).toBe(1);
  });

  it('when the same clientRequestId comes with a different body, then 422 IDEMPOTENCY_CONFLICT and nothing changes', async () => {
    for (const change of [{ phoneNumber: '+33699999999' }, { email: 'other@example.com' }]) {
      expectProblem(await order(partner.apiKey, { ...body, ...change }), 422, 'IDEMPOTENCY_CONFLICT');
    }
    expect((await wallet(partner.apiKey)).balance).toBe(10_000 - floorPrice);
    expect(await orderCount(partner.apiKey)).toBe(1);
  });

  it('when another partner uses the same clientRequestId, then it gets an order of its own', async () => {
    const other = await fundedPartner(1_000);
    const answer = await order(other.apiKey, body);
    expect(answer.status).toBe(201);
    expect(answer.body.id).not.toBe(first.body.id);
  });
});

describe('reading one order', () => {
  it('when a partner reads its order, then the §7 view; when another partner or a malformed id asks, then 404 ORDER_NOT_FOUND', async () => {
    const [owner, stranger] = await Promise.all([fundedPartner(2_000), onboardPartner()]);
    const created = await order(owner.apiKey, orderBody(planId));
    const own = await asKey(owner.apiKey, `/partner/orders/${created.body.id}`);
    expect(own.status).toBe(200);
    expect(Object.keys(own.body).sort()).toEqual([...orderViewKeys].sort());
    expect(own.body.id).toBe(created.body.id);

    expectProblem(await asKey(stranger.apiKey, `/partner/orders/${created.body.id}`), 404, 'ORDER_NOT_FOUND');
    for (const id of ['ord_01jzzzzzzzzzzzzzzzzzzzzzzz', 'nonsense', 'ord_', '%20', `ord_${'a'.repeat(500)}`, 'plan_01jzzzzzzzzzzzzzzzzzzzzzzz']) {
      expectProblem(await asKey(owner.apiKey, `/partner/orders/${id}`), 404, 'ORDER_NOT_FOUND');
    }
  });
});
