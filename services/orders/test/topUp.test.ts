// Protects top-up creation (contract §13): a bundle on the partner's own eSIM with a plan covering its countries, refused with the contract's codes otherwise and nothing debited; on provisioning the order names the same eSIM and a queued bundle is added.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ordersV1 } from '@esim/proto';
import { B, provisionedOrder } from './support/esims.js';
import { createTestEnv, newIccid, orderRequest, type OrdersClient, type TestEnv } from './support/testEnv.js';

let env: TestEnv;
let client: OrdersClient;
let france: { id: string; name: string };

beforeAll(async () => {
  env = await createTestEnv();
  ({ client } = await env.start());
  france = await env.plan('FR');
});
afterAll(() => env?.cleanup());

/** Active plans that cover FR among more countries, and one that does not cover FR. */
async function otherPlans() {
  const { plans } = await env.catalog.listPlans({ tier: 'standard', coversAll: ['FR'], page: { page: 1, limit: 100 } });
  const regional = plans.find((plan) => plan.countries.length > 1)!;
  const germany = await env.plan('DE');
  return { regional, germany };
}

describe('CreateOrder with an iccid (a top-up)', () => {
  it('when the plan covers the eSIM\'s countries, then a topup order is paid, and once provisioned it names the same eSIM with a queued bundle', async () => {
    const partnerId = env.partner(100_000);
    const first = await provisionedOrder(env, client, { partnerId, planId: france.id });
    const { regional } = await otherPlans();
    const { order: created } = await client.createOrder(orderRequest(partnerId, regional.id, { iccid: first.iccid! }));
    expect(created).toMatchObject({ kind: ordersV1.OrderKind.TOPUP, iccid: first.iccid, status: ordersV1.OrderStatus.PROCESSING });
    expect(created!.esim).toBeUndefined();
    const paid = (await env.outboxFor(created!.id)).find((event) => event.subject === 'orders.order.paid')!;
    expect(paid.payload.data).toMatchObject({ kind: 'topup', iccid: first.iccid, dataMb: regional.dataMb, validityDays: regional.validityDays });

    const topUp = await provisionedOrder(env, client, { partnerId, planId: regional.id, iccid: first.iccid! });
    expect(topUp.esim).toMatchObject({ iccid: first.iccid, activationCode: first.esim!.activationCode, qrCode: first.esim!.qrCode });
    const esim = await client.getEsim({ partnerId, iccid: first.iccid! });
    expect(esim.orderId).toBe(first.id);
    expect(esim.countries).toEqual(['FR']);
    // The first top-up is still processing: only provisioned orders have a bundle.
    expect(esim.bundles.map((bundle) => [bundle.orderId, bundle.status])).toEqual([
      [first.id, B.QUEUED],
      [topUp.id, B.QUEUED],
    ]);
  });

  it('when the ICCID is unknown, another partner\'s, malformed, or the plan does not cover the eSIM, then it is refused and nothing is debited', async () => {
    const partnerId = env.partner(100_000);
    const first = await provisionedOrder(env, client, { partnerId, planId: france.id });
    const stranger = env.partner(100_000);
    const { germany } = await otherPlans();
    const debits = env.wallet.debits();
    const refused: [ReturnType<typeof orderRequest>, string][] = [
      [orderRequest(partnerId, france.id, { iccid: newIccid() }), 'ESIM_NOT_FOUND'],
      [orderRequest(stranger, france.id, { iccid: first.iccid! }), 'ESIM_NOT_FOUND'],
      [orderRequest(partnerId, france.id, { iccid: '8933-not-digits' }), 'VALIDATION_ERROR'],
      [orderRequest(partnerId, germany.id, { iccid: first.iccid! }), 'PLAN_NOT_COMPATIBLE'],
      [orderRequest(partnerId, 'plan_01jgfjjz0a1rdj6z43ynhpn7zz', { iccid: first.iccid! }), 'PLAN_NOT_AVAILABLE'],
    ];
    for (const [request, code] of refused) await expect(client.createOrder(request), code).rejects.toMatchObject({ code });
    expect(env.wallet.debits()).toBe(debits);
    expect((await client.listOrders({ partnerId })).total).toBe(1);
  });

  it('when the eSIM was cancelled, then it is ESIM_NOT_TOPPABLE and nothing is debited', async () => {
    const partnerId = env.partner(100_000);
    const first = await provisionedOrder(env, client, { partnerId, planId: france.id });
    await client.cancelOrder({ partnerId, orderId: first.id });
    const debits = env.wallet.debits();
    await expect(client.createOrder(orderRequest(partnerId, france.id, { iccid: first.iccid! }))).rejects.toMatchObject({ code: 'ESIM_NOT_TOPPABLE' });
    expect(env.wallet.debits()).toBe(debits);
  });

  it('when a top-up\'s clientRequestId is reused, then the same ICCID replays and another ICCID is an IDEMPOTENCY_CONFLICT', async () => {
    const partnerId = env.partner(100_000);
    const first = await provisionedOrder(env, client, { partnerId, planId: france.id });
    const other = await provisionedOrder(env, client, { partnerId, planId: france.id });
    const request = orderRequest(partnerId, france.id, { iccid: first.iccid! });
    const created = await client.createOrder(request);
    expect(await client.createOrder(request)).toMatchObject({ replayed: true, order: { id: created.order!.id } });
    await expect(client.createOrder({ ...request, iccid: other.iccid! })).rejects.toMatchObject({ code: 'IDEMPOTENCY_CONFLICT' });
    const { iccid: _dropped, ...firstOrderBody } = request;
    await expect(client.createOrder(firstOrderBody)).rejects.toMatchObject({ code: 'IDEMPOTENCY_CONFLICT' });
  });
});
