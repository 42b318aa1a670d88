// Protects §7's group orders, quotes and CSV export and §5's traveller facts and filters through the gateway: one order, one debit and one payment.paid for N eSIMs, the quote that records nothing, the export of every activation code, the group cancelled as a whole, and the 400s bad input gets.
import { beforeAll, describe, expect, it } from 'vitest';
import { asKey, expectInvalidField, expectProblem, onboardPartner } from './support/client.js';
import { finalOrder, fundedPartner, orderBody, planWithSku } from './support/money.js';

let planId: string;
let failingPlanId: string;
const floorPrice = 600;

beforeAll(async () => {
  planId = await planWithSku('E2E-GROUP', floorPrice);
  failingPlanId = await planWithSku('FAIL-E2E-GROUP', floorPrice);
});

const order = (key: string, body: unknown) => asKey(key, '/partner/orders', { body });
const quote = (key: string, body: unknown) => asKey(key, '/partner/orders/quote', { body });

describe('quantity on POST /partner/orders', () => {
  it.each([
    ['0', 0],
    ['51', 51],
    ['1.5', 1.5],
    ['the string "2"', '2'],
  ])('when quantity is %s, then 400 VALIDATION_ERROR names quantity and nothing is debited', async (_label, quantity) => {
    const partner = await fundedPartner(100_000);
    expectInvalidField(await order(partner.apiKey, { ...orderBody(planId), quantity }), 'quantity');
    expect((await asKey(partner.apiKey, '/partner/wallet')).body.balance).toBe(100_000);
  });

  it('when quantity comes with an iccid, then 400 VALIDATION_ERROR names quantity', async () => {
    const partner = await fundedPartner(100_000);
    expectInvalidField(await order(partner.apiKey, { ...orderBody(planId), quantity: 2, iccid: '8933000000000000001' }), 'quantity');
  });

  it('when 3 eSIMs are ordered, then one order is debited 3 × the unit price once, provisions 3 eSIMs, and exports them as CSV', async () => {
    const partner = await fundedPartner(100_000);
    const created = await order(partner.apiKey, { ...orderBody(planId), quantity: 3 });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ quantity: 3, unitPrice: floorPrice, price: 3 * floorPrice, esims: [], refundedAmount: null, walletBalance: 100_000 - 3 * floorPrice });
    const done = await finalOrder(partner.apiKey, created.body.id);
    expect(done.status).toBe('provisioned');
    expect(done.esims).toHaveLength(3);
    expect(new Set(done.esims.map((esim: { iccid: string }) => esim.iccid)).size).toBe(3);
    expect(done.esim).toEqual(done.esims[0]);
    for (const esim of done.esims) expect(esim.qrCode).toMatch(/^data:image\/png;base64,/);

    const wallet = (await asKey(partner.apiKey, '/partner/wallet')).body;
    const entries = wallet.ledger.filter((entry: { orderId: string | null }) => entry.orderId === created.body.id);
    expect(entries.map((entry: { type: string; amount: number }) => [entry.type, entry.amount])).toEqual([['order_debit', -3 * floorPrice]]);

    const csv = await asKey(partner.apiKey, `/partner/orders/${created.body.id}/esims.csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    const lines = csv.text.trim().split(/\r?\n/);
    expect(lines[0]).toBe('iccid,smdpAddress,matchingId,activationCode,appleInstallUrl');
    expect(lines.slice(1).map((line) => line.split(',')[0])).toEqual(done.esims.map((esim: { iccid: string }) => esim.iccid));

    const esim = await asKey(partner.apiKey, `/partner/esims/${done.esims[2].iccid}`);
    expect(esim.body.orderId).toBe(created.body.id);

    const other = await fundedPartner(0);
    expectProblem(await asKey(other.apiKey, `/partner/orders/${created.body.id}/esims.csv`), 404, 'ORDER_NOT_FOUND');

    const cancelled = await asKey(partner.apiKey, `/partner/orders/${created.body.id}/cancel`, { method: 'POST' });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', refundedAmount: 3 * floorPrice });
    expect((await asKey(partner.apiKey, '/partner/wallet')).body.balance).toBe(100_000);
    for (const unit of done.esims) expect((await asKey(partner.apiKey, `/partner/esims/${unit.iccid}`)).body.status).toBe('cancelled');
  });

  it('when no eSIM could be provisioned, then the order fails with the full refund and its CSV is the header row alone', async () => {
    const partner = await fundedPartner(100_000);
    const created = await order(partner.apiKey, { ...orderBody(failingPlanId), quantity: 2 });
    expect(created.status, created.text).toBe(201);
    const done = await finalOrder(partner.apiKey, created.body.id);
    expect(done).toMatchObject({ status: 'failed', esim: null, esims: [] });
    const csv = await asKey(partner.apiKey, `/partner/orders/${created.body.id}/esims.csv`);
    expect(csv.text.trim()).toBe('iccid,smdpAddress,matchingId,activationCode,appleInstallUrl');
    expect((await asKey(partner.apiKey, '/partner/wallet')).body.balance).toBe(100_000);
  });
});

describe('POST /partner/orders/quote', () => {
  it('when a group is quoted beyond the balance, then 200 with the price and a negative balance after, and nothing is recorded', async () => {
    const partner = await fundedPartner(1_000);
    const answer = await quote(partner.apiKey, { planId, email: 'a@example.com', phoneNumber: '+33612345678', quantity: 2 });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({
      planId,
      quantity: 2,
      unitPrice: floorPrice,
      price: 2 * floorPrice,
      currency: 'USD',
      walletBalance: 1_000,
      balanceAfter: 1_000 - 2 * floorPrice,
      sufficientBalance: false,
      compatible: null,
    });
    expect((await asKey(partner.apiKey, '/partner/orders')).body.pagination.total).toBe(0);
  });

  it('when the plan is unknown, the eSIM another partner\'s, or a field bad, then 422, 404 and 400 as a create would answer', async () => {
    const partner = await fundedPartner(1_000);
    const body = { planId, email: 'a@example.com', phoneNumber: '+33612345678' };
    expectProblem(await quote(partner.apiKey, { ...body, planId: 'plan_unknown' }), 422, 'PLAN_NOT_AVAILABLE');
    expectProblem(await quote(partner.apiKey, { ...body, iccid: '8933000000000000001' }), 404, 'ESIM_NOT_FOUND');
    expectInvalidField(await quote(partner.apiKey, { ...body, quantity: 0 }), 'quantity');
    expectInvalidField(await quote(partner.apiKey, { ...body, clientRequestId: 'x' }), 'clientRequestId');
  });
});

describe('catalog traveller facts (§5)', () => {
  it('when the catalog is filtered, then only matching plans are listed; unknown filter values are 400 naming the parameter', async () => {
    const partner = await onboardPartner();
    const unlimited = await asKey(partner.apiKey, '/partner/catalog?unlimited=true&limit=100');
    expect(unlimited.status).toBe(200);
    expect(unlimited.body.data.length).toBeGreaterThan(0);
    for (const plan of unlimited.body.data) expect(plan).toMatchObject({ unlimited: true, dataMb: null, fairUseMb: expect.any(Number), throttleKbps: expect.any(Number) });
    const fiveG = await asKey(partner.apiKey, '/partner/catalog?country=FR&generation=5G&limit=100');
    for (const plan of fiveG.body.data) {
      expect(plan.networks.some((n: { country: string; generations: string[] }) => n.country === 'FR' && n.generations.includes('5G'))).toBe(true);
      expect(plan).not.toHaveProperty('profileType');
    }
    const topUpable = await asKey(partner.apiKey, '/partner/catalog?topUpable=false&limit=100');
    for (const plan of topUpable.body.data) expect(plan.topUpable).toBe(false);
    expectInvalidField(await asKey(partner.apiKey, '/partner/catalog?generation=6G'), 'generation');
    expectInvalidField(await asKey(partner.apiKey, '/partner/catalog?unlimited=yes'), 'unlimited');
    expectInvalidField(await asKey(partner.apiKey, '/partner/catalog?topUpable=1'), 'topUpable');
  });
});
