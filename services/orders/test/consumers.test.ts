// Protects the saga's later steps in orders: provisioning and refund events move the order exactly once, store the eSIM with a scannable QR code, and announce each step in order.
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@esim/ids';
import { createTestEnv, esimFor as supportEsimFor, eventually, orderRequest, type OrdersClient, type TestEnv } from './support/testEnv.js';
import { ordersV1 } from '@esim/proto';

const S = ordersV1.OrderStatus;

let env: TestEnv;
let client: OrdersClient;
let plan: { id: string; name: string };

beforeAll(async () => {
  env = await createTestEnv();
  ({ client } = await env.start());
  plan = await env.plan('PT');
});
afterAll(() => env?.cleanup());

async function paidOrder() {
  const partnerId = env.partner(10_000);
  const { order } = await client.createOrder(orderRequest(partnerId, plan.id));
  return order!;
}

function esimFor(orderId: string) {
  return { ...supportEsimFor(orderId), supplierReference: `SUP-${orderId.slice(-6)}` };
}

const statusIs = (id: string, partnerId: string, status: ordersV1.OrderStatus) => async () => (await client.getOrder({ id, partnerId })).status === status;

function decodeQr(dataUrl: string): string | undefined {
  const [prefix, base64] = dataUrl.split(',');
  expect(prefix).toBe('data:image/png;base64');
  const png = PNG.sync.read(Buffer.from(base64!, 'base64'));
  return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data;
}

describe('provisioning.succeeded', () => {
  it('when the eSIM arrives, then the order is provisioned with it, its QR code scans to the LPA string, and provisioned events follow payment.paid', async () => {
    const order = await paidOrder();
    const esim = esimFor(order.id);
    await env.publish('provisioning.succeeded', esim);
    expect(await eventually(statusIs(order.id, order.partnerId, S.PROVISIONED))).toBe(true);

    const provisioned = await client.getOrder({ id: order.id, partnerId: order.partnerId });
    expect(provisioned.supplierReference).toBe(esim.supplierReference);
    expect(provisioned.failureReason).toBeUndefined();
    expect(provisioned.esim).toMatchObject({ iccid: esim.iccid, smdpAddress: esim.smdpAddress, matchingId: esim.matchingId, activationCode: esim.activationCode });
    expect(decodeQr(provisioned.esim!.qrCode)).toBe(`LPA:1$smdp.example.com$${esim.matchingId}`);

    const events = await env.outboxFor(order.id);
    expect(events.map((event) => [event.subject, (event.payload.data as { type?: string }).type])).toEqual([
      ['orders.order.paid', undefined],
      ['partner.notification', 'payment.paid'],
      ['orders.order.provisioned', undefined],
      ['partner.notification', 'provision.provisioned'],
    ]);
    expect(events[2]!.payload.data).toEqual({ orderId: order.id, partnerId: order.partnerId });
    expect(events[3]!.payload.data).toEqual({
      partnerId: order.partnerId,
      type: 'provision.provisioned',
      orderId: order.id,
      payload: {
        order: {
          id: order.id,
          clientRequestId: order.clientRequestId,
          kind: 'esim',
          iccid: esim.iccid,
          planId: plan.id,
          planName: plan.name,
          status: 'provisioned',
          price: Number(order.price),
          currency: 'USD',
          email: order.email,
          phoneNumber: order.phoneNumber,
          esim: {
            iccid: esim.iccid,
            smdpAddress: esim.smdpAddress,
            matchingId: esim.matchingId,
            activationCode: esim.activationCode,
            appleInstallUrl: `https://esimsetup.apple.com/esim_qrcode_provisioning?carddata=${encodeURIComponent(esim.activationCode)}`,
          },
          failureReason: null,
          createdAt: provisioned.createdAt,
          updatedAt: provisioned.updatedAt,
          quantity: 1,
          unitPrice: Number(order.price),
          esims: [
            {
              iccid: esim.iccid,
              smdpAddress: esim.smdpAddress,
              matchingId: esim.matchingId,
              activationCode: esim.activationCode,
              appleInstallUrl: `https://esimsetup.apple.com/esim_qrcode_provisioning?carddata=${encodeURIComponent(esim.activationCode)}`,
            },
          ],
          refundedAmount: null,
          livemode: true,
        },
      },
    });
  });

  it('when the same event is redelivered, or the outcome reported again under a new id, then nothing is written twice', async () => {
    const order = await paidOrder();
    const esim = esimFor(order.id);
    const eventId = await env.publish('provisioning.succeeded', esim);
    expect(await eventually(statusIs(order.id, order.partnerId, S.PROVISIONED))).toBe(true);
    const before = await env.outboxFor(order.id);

    await env.publish('provisioning.succeeded', esim, { id: eventId, msgId: newId('evt') });
    await env.publish('provisioning.succeeded', { ...esimFor(order.id), iccid: '8933150319000099999' });
    // The consumer applies events in order: once a later order is provisioned, both repeats were handled.
    const sentinel = await paidOrder();
    await env.publish('provisioning.succeeded', esimFor(sentinel.id));
    expect(await eventually(statusIs(sentinel.id, sentinel.partnerId, S.PROVISIONED))).toBe(true);

    expect(await env.outboxFor(order.id)).toEqual(before);
    expect((await client.getOrder({ id: order.id, partnerId: order.partnerId })).esim?.iccid).toBe(esim.iccid);
  });

  it('when the event names an unknown order, then it is dropped and later events still flow', async () => {
    await env.publish('provisioning.succeeded', esimFor(newId('ord')));
    const order = await paidOrder();
    await env.publish('provisioning.succeeded', esimFor(order.id));
    expect(await eventually(statusIs(order.id, order.partnerId, S.PROVISIONED))).toBe(true);
  });
});

describe('provisioning.failed, then wallet.order.refunded', () => {
  it('when provisioning fails, then the refund is requested while the order stays processing; once refunded the order is failed and provision.failed carries the refund', async () => {
    const order = await paidOrder();
    const price = Number(order.price);
    await env.publish('provisioning.failed', { orderId: order.id, reason: 'Supplier rejected SKU' });
    expect(await eventually(async () => (await env.outboxFor(order.id)).some((e) => e.subject === 'orders.order.provisioning_failed'))).toBe(true);

    const requested = (await env.outboxFor(order.id)).at(-1)!;
    expect(requested.payload.data).toEqual({ orderId: order.id, partnerId: order.partnerId, reason: 'Supplier rejected SKU' });
    const processing = await client.getOrder({ id: order.id, partnerId: order.partnerId });
    expect(processing.status).toBe(S.PROCESSING);
    expect(processing.failureReason).toBeUndefined();

    await env.publish('wallet.order.refunded', { orderId: order.id, partnerId: order.partnerId, amount: price, ledgerEntryId: newId('led'), balanceAfter: 10_000 });
    expect(await eventually(statusIs(order.id, order.partnerId, S.FAILED))).toBe(true);
    const failed = await client.getOrder({ id: order.id, partnerId: order.partnerId });
    expect(failed).toMatchObject({ status: S.FAILED, failureReason: 'Supplier rejected SKU' });
    expect(failed.esim).toBeUndefined();

    const events = await env.outboxFor(order.id);
    expect(events.map((event) => [event.subject, (event.payload.data as { type?: string }).type])).toEqual([
      ['orders.order.paid', undefined],
      ['partner.notification', 'payment.paid'],
      ['orders.order.provisioning_failed', undefined],
      ['partner.notification', 'provision.failed'],
    ]);
    expect(events[3]!.payload.data).toMatchObject({
      partnerId: order.partnerId,
      type: 'provision.failed',
      orderId: order.id,
      payload: { order: { id: order.id, status: 'failed', esim: null, failureReason: 'Supplier rejected SKU', updatedAt: failed.updatedAt }, refundedAmount: price },
    });
  });

  it('when the failure or the refund is reported twice, then each is recorded once', async () => {
    const order = await paidOrder();
    // Each consumer applies its events in order: once a later order's event is applied, the repeats before it were handled.
    const sentinel = await paidOrder();
    const failure = await env.publish('provisioning.failed', { orderId: order.id, reason: 'first' });
    await env.publish('provisioning.failed', { orderId: order.id, reason: 'first' }, { id: failure, msgId: newId('evt') });
    await env.publish('provisioning.failed', { orderId: order.id, reason: 'second' });
    await env.publish('provisioning.failed', { orderId: sentinel.id, reason: 'x' });
    expect(await eventually(async () => (await env.outboxFor(sentinel.id)).some((e) => e.subject === 'orders.order.provisioning_failed'))).toBe(true);

    const refund = { orderId: order.id, partnerId: order.partnerId, amount: Number(order.price), ledgerEntryId: newId('led'), balanceAfter: 10_000 };
    const refunded = await env.publish('wallet.order.refunded', refund);
    await env.publish('wallet.order.refunded', refund, { id: refunded, msgId: newId('evt') });
    await env.publish('wallet.order.refunded', refund);
    await env.publish('wallet.order.refunded', { ...refund, orderId: sentinel.id, partnerId: sentinel.partnerId });
    expect(await eventually(statusIs(sentinel.id, sentinel.partnerId, S.FAILED))).toBe(true);

    expect((await env.outboxFor(order.id)).map((event) => event.subject)).toEqual([
      'orders.order.paid',
      'partner.notification',
      'orders.order.provisioning_failed',
      'partner.notification',
    ]);
    expect(await client.getOrder({ id: order.id, partnerId: order.partnerId })).toMatchObject({ status: S.FAILED, failureReason: 'first' });
  });
});
