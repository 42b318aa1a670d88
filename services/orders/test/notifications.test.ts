// Protects how supplier notifications become eSIM state (contract §13): recorded once by id, applied in the same transaction, thresholds 80/100 once each per bundle whatever the repeats and their order, depletion and expiry starting the next queued bundle, and notifications that arrive before provisioning applied when it lands.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { B, E, esimEvents, notification, provisionedOrder, T } from './support/esims.js';
import { createTestEnv, esimFor, eventually, newIccid, orderRequest, type OrdersClient, type TestEnv } from './support/testEnv.js';

let env: TestEnv;
let client: OrdersClient;
let plan: { id: string; name: string };
let dataMb: number;
let validityDays: number;

beforeAll(async () => {
  env = await createTestEnv();
  ({ client } = await env.start());
  plan = await env.plan('FR');
  ({ dataMb, validityDays } = await env.catalog.adminGetPlan({ id: plan.id }));
});
afterAll(() => env?.cleanup());

const esimOf = async (partnerId: string) => {
  const order = await provisionedOrder(env, client, { partnerId, planId: plan.id });
  return { order, iccid: order.iccid! };
};
const thresholds = async (firstOrderId: string) =>
  (await esimEvents(env, firstOrderId)).filter((event) => event.type === 'esim.usage_threshold').map((event) => event.payload.threshold);

describe('the eSIM view', () => {
  it('when a first order is provisioned, then its eSIM is released with one queued bundle, readable by its partner only', async () => {
    const partnerId = env.partner();
    const { order, iccid } = await esimOf(partnerId);
    const view = await client.getEsim({ partnerId, iccid });
    expect(view).toMatchObject({
      iccid,
      orderId: order.id,
      status: E.RELEASED,
      activationCode: order.esim!.activationCode,
      appleInstallUrl: `https://esimsetup.apple.com/esim_qrcode_provisioning?carddata=${encodeURIComponent(order.esim!.activationCode)}`,
      countries: ['FR'],
      usage: { dataTotalMb: dataMb, dataUsedMb: 0, dataRemainingMb: dataMb },
      bundles: [{ orderId: order.id, planId: plan.id, planName: plan.name, dataMb, dataUsedMb: 0, validityDays, status: B.QUEUED }],
    });
    expect(view.region).toBeUndefined();
    expect(view.bundles[0]!.activatedAt).toBeUndefined();
    expect(order.esim!.appleInstallUrl).toBe(view.appleInstallUrl);
    for (const [who, which] of [[env.partner(), iccid], [partnerId, newIccid()], [partnerId, 'nope']] as const) {
      await expect(client.getEsim({ partnerId: who, iccid: which })).rejects.toMatchObject({ code: 'ESIM_NOT_FOUND' });
    }
    expect((await client.getEsim({ partnerId: '', iccid })).partnerId).toBe(partnerId);
  });

  it('when eSIMs are listed, then a partner sees its own newest first, filtered by status and counted', async () => {
    const partnerId = env.partner();
    const first = await esimOf(partnerId);
    const second = await esimOf(partnerId);
    await client.recordSupplierNotification(notification(T.ESIM_INSTALLED, first.iccid));
    const all = await client.listEsims({ partnerId });
    expect(all.esims.map((esim) => esim.iccid)).toEqual([second.iccid, first.iccid]);
    expect(all.total).toBe(2);
    const installed = await client.listEsims({ partnerId, status: E.INSTALLED });
    expect(installed.esims.map((esim) => esim.iccid)).toEqual([first.iccid]);
    expect(installed.total).toBe(1);
    expect((await client.listEsims({ partnerId, page: { page: 2, limit: 1 } })).esims.map((esim) => esim.iccid)).toEqual([first.iccid]);
  });
});

describe('RecordSupplierNotification', () => {
  it('when esim.installed arrives, then the eSIM is installed and esim.installed emitted once, a repeat of the id answering duplicate', async () => {
    const partnerId = env.partner();
    const { order, iccid } = await esimOf(partnerId);
    const installed = notification(T.ESIM_INSTALLED, iccid);
    expect(await client.recordSupplierNotification(installed)).toMatchObject({ duplicate: false });
    expect(await client.recordSupplierNotification(installed)).toMatchObject({ duplicate: true });
    expect(await client.recordSupplierNotification(notification(T.ESIM_INSTALLED, iccid))).toMatchObject({ duplicate: false });
    expect((await client.getEsim({ partnerId, iccid })).status).toBe(E.INSTALLED);
    const events = await esimEvents(env, order.id);
    expect(events.map((event) => event.type)).toEqual(['esim.installed']);
    expect(events[0]!.payload).toMatchObject({ esim: { iccid, orderId: order.id, status: 'installed' } });
  });

  it('when the same cumulative use is reported three times and out of order, then 80 and 100 are each emitted once and lower values are ignored', async () => {
    const partnerId = env.partner();
    const { order, iccid } = await esimOf(partnerId);
    const topUp = await provisionedOrder(env, client, { partnerId, planId: plan.id, iccid });
    const at80 = Math.ceil(dataMb * 0.85);
    const depletedAt = '2030-01-02T03:04:05.000Z';
    const usage = (used: number, occurredAt?: string) => notification(T.BUNDLE_USAGE, iccid, { reference: order.id, dataUsedMb: used, ...(occurredAt ? { occurredAt } : {}) });
    for (const step of [usage(at80), usage(at80), usage(10), usage(at80), usage(dataMb, depletedAt), usage(at80), usage(dataMb), usage(dataMb + 50)]) {
      await client.recordSupplierNotification(step);
    }
    expect(await thresholds(order.id)).toEqual([80, 100]);
    const view = await client.getEsim({ partnerId, iccid });
    expect(view.bundles.map((bundle) => [bundle.orderId, bundle.status, bundle.dataUsedMb])).toEqual([
      [order.id, B.DEPLETED, dataMb],
      [topUp.id, B.ACTIVE, 0],
    ]);
    // The next queued bundle starts when the active one ends: at the depleting notification's time.
    expect(view.bundles[1]).toMatchObject({ activatedAt: depletedAt, expiresAt: new Date(Date.parse(depletedAt) + validityDays * 86_400_000).toISOString() });
    expect(view.usage).toMatchObject({ dataTotalMb: 2 * dataMb, dataUsedMb: dataMb, dataRemainingMb: dataMb });
    const hundred = (await esimEvents(env, order.id)).find((event) => event.payload.threshold === 100)!;
    expect(hundred.payload).toMatchObject({ bundle: { orderId: order.id, status: 'depleted', dataUsedMb: dataMb }, esim: { iccid } });
  });

  it('when a single report jumps past both thresholds, then 80 is emitted and then 100', async () => {
    const partnerId = env.partner();
    const { order, iccid } = await esimOf(partnerId);
    await client.recordSupplierNotification(notification(T.BUNDLE_USAGE, iccid, { reference: order.id, dataUsedMb: dataMb }));
    expect(await thresholds(order.id)).toEqual([80, 100]);
    expect((await client.getEsim({ partnerId, iccid })).bundles[0]).toMatchObject({ status: B.DEPLETED });
  });

  it('when the active bundle expires, then it is expired once, announced once, no longer counted, and the next queued one is active', async () => {
    const partnerId = env.partner();
    const { order, iccid } = await esimOf(partnerId);
    const topUp = await provisionedOrder(env, client, { partnerId, planId: plan.id, iccid });
    await client.recordSupplierNotification(notification(T.BUNDLE_USAGE, iccid, { reference: order.id, dataUsedMb: 100 }));
    const expired = notification(T.BUNDLE_EXPIRED, iccid, { reference: order.id });
    await client.recordSupplierNotification(expired);
    await client.recordSupplierNotification(expired);
    await client.recordSupplierNotification(notification(T.BUNDLE_EXPIRED, iccid, { reference: order.id }));
    const view = await client.getEsim({ partnerId, iccid });
    expect(view.bundles.map((bundle) => [bundle.orderId, bundle.status])).toEqual([
      [order.id, B.EXPIRED],
      [topUp.id, B.ACTIVE],
    ]);
    expect(view.bundles[1]!.activatedAt).toBe(expired.occurredAt);
    expect(view.usage).toMatchObject({ dataTotalMb: dataMb, dataUsedMb: 0, dataRemainingMb: dataMb });
    const events = await esimEvents(env, order.id);
    expect(events.map((event) => event.type)).toEqual(['esim.bundle_expired']);
    expect(events[0]!.payload).toMatchObject({ bundle: { orderId: order.id, status: 'expired', dataUsedMb: 100 } });
  });

  it('when notifications arrive before provisioning has recorded the eSIM or the top-up, then they are kept and applied when it lands', async () => {
    const partnerId = env.partner();
    const { order: created } = await client.createOrder(orderRequest(partnerId, plan.id));
    const iccid = newIccid();
    await client.recordSupplierNotification(notification(T.ESIM_INSTALLED, iccid));
    expect(await env.query('SELECT 1 FROM orders.supplier_notifications WHERE iccid = $1 AND applied_at IS NULL', [iccid])).toHaveLength(1);
    await env.publish('provisioning.succeeded', esimFor(created!.id, iccid));
    expect(await eventually(async () => (await client.getEsim({ partnerId, iccid }).catch(() => undefined))?.status === E.INSTALLED, 10_000)).toBe(true);

    const { order: topUp } = await client.createOrder(orderRequest(partnerId, plan.id, { iccid }));
    await client.recordSupplierNotification(notification(T.BUNDLE_USAGE, iccid, { reference: created!.id, dataUsedMb: dataMb }));
    await client.recordSupplierNotification(notification(T.BUNDLE_USAGE, iccid, { reference: topUp!.id, dataUsedMb: 7 }));
    await env.publish('provisioning.succeeded', esimFor(topUp!.id, iccid));
    expect(
      await eventually(async () => (await client.getEsim({ partnerId, iccid })).bundles.find((bundle) => bundle.orderId === topUp!.id)?.dataUsedMb === 7, 10_000),
    ).toBe(true);
    expect((await client.getEsim({ partnerId, iccid })).bundles.map((bundle) => bundle.status)).toEqual([B.DEPLETED, B.ACTIVE]);
    expect(await env.query('SELECT 1 FROM orders.supplier_notifications WHERE iccid = $1 AND applied_at IS NULL', [iccid])).toHaveLength(0);
  });

  it('when a notification is malformed for its type, then it is a VALIDATION_ERROR and nothing is recorded', async () => {
    const iccid = newIccid();
    const bad = [
      notification(T.BUNDLE_USAGE, iccid, { dataUsedMb: 5 }),
      notification(T.BUNDLE_USAGE, iccid, { reference: 'ord_01jgfjjz0a1rdj6z43ynhpn79y' }),
      notification(T.ESIM_INSTALLED, '123'),
      notification(T.UNSPECIFIED, iccid),
      { ...notification(T.ESIM_INSTALLED, iccid), occurredAt: 'yesterday' },
      { ...notification(T.ESIM_INSTALLED, iccid), id: '' },
    ];
    for (const body of bad) await expect(client.recordSupplierNotification(body), JSON.stringify(body)).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(await env.query('SELECT 1 FROM orders.supplier_notifications WHERE iccid = $1', [iccid])).toHaveLength(0);
  });
});
