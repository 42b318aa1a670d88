// Protects what a partner sees of an order after it is paid (§7): provisioning to a scannable eSIM, failure with a refund, lists newest first with paging and filters, nothing internal in any answer, and the operator's view.
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { admin, asKey, expectInvalidField, expectProblem, type Onboarded } from './support/client.js';
import { finalOrder, fundedPartner, orderBody, planWithSku } from './support/money.js';

const internalKeys = ['supplierSku', 'supplierCost', 'floorPrice', 'retailPrice', 'reservation', 'partnerId', 'supplierReference'];

/** Every key of every object in a JSON value, however deep. */
function keysOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(keysOf);
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([key, inner]) => [key, ...keysOf(inner)]);
  return [];
}

function decodeQr(dataUrl: string): string | undefined {
  const [header, base64] = dataUrl.split(',');
  expect(header).toBe('data:image/png;base64');
  const png = PNG.sync.read(Buffer.from(base64!, 'base64'));
  return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data;
}

let partner: Onboarded;
let plans: { ok: string; fail: string };
const placed: Array<{ id: string; status?: string }> = [];

beforeAll(async () => {
  const [ok, fail] = await Promise.all([planWithSku('E2E-LIFE', 400), planWithSku('FAIL-E2E', 300)]);
  plans = { ok, fail };
  partner = await fundedPartner(10_000);
  // Sequential, so creation order is known: two that provision, one that fails.
  for (const planId of [ok, fail, ok]) {
    const answer = await asKey(partner.apiKey, '/partner/orders', { body: orderBody(planId) });
    expect(answer.status, answer.text).toBe(201);
    placed.push({ id: answer.body.id });
  }
});

describe('provisioning', () => {
  it('when an order is provisioned, then it carries an eSIM whose QR code decodes to its LPA activation code', async () => {
    const order = await finalOrder(partner.apiKey, placed[0]!.id);
    expect(order.status).toBe('provisioned');
    expect(order.failureReason).toBeNull();
    const { esim } = order;
    expect(Object.keys(esim).sort()).toEqual(['activationCode', 'appleInstallUrl', 'iccid', 'matchingId', 'qrCode', 'smdpAddress']);
    expect(esim.iccid).toMatch(/^89\d{16,20}$/);
    expect(esim.activationCode).toBe(`LPA:1$${esim.smdpAddress}$${esim.matchingId}`);
    expect(esim.activationCode).toMatch(/^LPA:1\$[^$]+\$[^$]+$/);
    expect(decodeQr(esim.qrCode)).toBe(esim.activationCode);
    expect(esim.appleInstallUrl).toBe(`https://esimsetup.apple.com/esim_qrcode_provisioning?carddata=${encodeURIComponent(esim.activationCode)}`);
    expect(order).toMatchObject({ kind: 'esim', iccid: esim.iccid });
    expect(order.updatedAt >= order.createdAt).toBe(true);
  });

  it('when the supplier rejects the plan (FAIL- SKU), then the order fails with a reason and the price comes back as one refund entry', async () => {
    const order = await finalOrder(partner.apiKey, placed[1]!.id);
    expect(order.status).toBe('failed');
    expect(order.esim).toBeNull();
    expect(order.failureReason).toEqual(expect.any(String));
    expect(order.failureReason.length).toBeGreaterThan(0);
    const ledger = (await asKey(partner.apiKey, '/partner/wallet/ledger?limit=100')).body.data as Array<{ type: string; amount: number; orderId: string }>;
    const forOrder = ledger.filter((e) => e.orderId === order.id);
    expect(forOrder.map((e) => [e.type, e.amount]).sort()).toEqual([
      ['order_debit', -300],
      ['refund', 300],
    ]);
    await finalOrder(partner.apiKey, placed[2]!.id);
    expect((await asKey(partner.apiKey, '/partner/wallet')).body.balance).toBe(10_000 - 400 - 400);
  });
});

describe('listing orders', () => {
  it('when the partner lists its orders, then newest first, paged with §3 pagination', async () => {
    await finalOrder(partner.apiKey, placed[2]!.id);
    const newestFirst = placed.map((p) => p.id).reverse();
    const all = await asKey(partner.apiKey, '/partner/orders');
    expect(all.body.data.map((o: { id: string }) => o.id)).toEqual(newestFirst);
    expect(all.body.pagination).toEqual({ page: 1, limit: 20, total: 3, totalPages: 1 });

    const first = await asKey(partner.apiKey, '/partner/orders?limit=2&page=1');
    const second = await asKey(partner.apiKey, '/partner/orders?limit=2&page=2');
    expect([...first.body.data, ...second.body.data].map((o: { id: string }) => o.id)).toEqual(newestFirst);
    expect(second.body.pagination).toEqual({ page: 2, limit: 2, total: 3, totalPages: 2 });
    const past = await asKey(partner.apiKey, '/partner/orders?limit=2&page=3');
    expect(past.status).toBe(200);
    expect(past.body.data).toEqual([]);
  });

  it('when the partner filters by status, then only orders in that state are listed', async () => {
    const failed = await asKey(partner.apiKey, '/partner/orders?status=failed');
    expect(failed.body.data.map((o: { id: string }) => o.id)).toEqual([placed[1]!.id]);
    const provisioned = await asKey(partner.apiKey, '/partner/orders?status=provisioned');
    expect(provisioned.body.data.map((o: { id: string }) => o.id)).toEqual([placed[2]!.id, placed[0]!.id]);
    expect((await asKey(partner.apiKey, '/partner/orders?status=processing')).body.data).toEqual([]);
  });

  it('when the query is out of bounds or unknown, then 400 naming the parameter', async () => {
    for (const [query, path] of [
      ['status=pending', 'status'],
      ['status=PROVISIONED', 'status'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['page=0', 'page'],
      ['page=abc', 'page'],
      ['limit=1.5', 'limit'],
      ['sort=asc', 'sort'],
    ] as const) {
      expectInvalidField(await asKey(partner.apiKey, `/partner/orders?${query}`), path);
    }
  });
});

describe('the operator’s view', () => {
  it('when an operator reads orders, then each carries the partner id and the supplier reference, filterable by partner and status', async () => {
    const listed = await admin(`/orders?partnerId=${partner.id}&status=provisioned`);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((o: { id: string }) => o.id)).toEqual([placed[2]!.id, placed[0]!.id]);
    const one = await admin(`/orders/${placed[0]!.id}`);
    expect(one.status).toBe(200);
    const partnerView = (await asKey(partner.apiKey, `/partner/orders/${placed[0]!.id}`)).body;
    expect(one.body).toEqual({ ...partnerView, partnerId: partner.id, supplierReference: expect.any(String) });
    const failed = await admin(`/orders/${placed[1]!.id}`);
    expect(failed.body).toMatchObject({ status: 'failed', partnerId: partner.id });

    const everyone = await admin('/orders?limit=5');
    expect(everyone.body.pagination.total).toBeGreaterThanOrEqual(3);
    for (const id of ['ord_01jzzzzzzzzzzzzzzzzzzzzzzz', 'nonsense']) expectProblem(await admin(`/orders/${id}`), 404, 'ORDER_NOT_FOUND');
    expectInvalidField(await admin('/orders?status=bogus'), 'status');
  });
});

describe('nothing internal reaches a partner', () => {
  it('when every partner order and wallet answer is read, then none has an internal field, and orders have exactly the §7 keys', async () => {
    const answers = [
      await asKey(partner.apiKey, '/partner/orders'),
      ...(await Promise.all(placed.map((p) => asKey(partner.apiKey, `/partner/orders/${p.id}`)))),
      await asKey(partner.apiKey, '/partner/wallet'),
      await asKey(partner.apiKey, '/partner/wallet/ledger'),
      await asKey(partner.apiKey, '/partner/orders', { body: orderBody(plans.ok) }),
    ];
    for (const answer of answers) {
      expect(answer.status, answer.text).toBeLessThan(300);
      expect(keysOf(answer.body).filter((key) => internalKeys.includes(key))).toEqual([]);
      expect(answer.text).not.toMatch(/E2E-LIFE-|FAIL-E2E-/);
    }
  });
});
