import { newId } from '@esim/ids';
import type { Notification } from './testEnv.js';

/** An order view as partners see it (contract §7, without the QR code). */
export function orderView(orderId: string, status: 'processing' | 'provisioned' | 'failed') {
  return {
    id: orderId,
    clientRequestId: `req-${orderId.slice(-6)}`,
    kind: 'esim' as const,
    iccid: status === 'provisioned' ? '8933000000000000001' : null,
    planId: 'plan_01jd4x5c8v9w2m3n4p5q6r7s8t',
    planName: 'France 5 GB / 30 days',
    status,
    price: 750,
    currency: 'USD',
    email: 'c***@example.com',
    phoneNumber: '+33612345678',
    esim:
      status === 'provisioned'
        ? {
            iccid: '8933000000000000001',
            smdpAddress: 'smdp.example.com',
            matchingId: 'MATCH-1',
            activationCode: 'LPA:1$smdp.example.com$MATCH-1',
            appleInstallUrl: 'https://esimsetup.apple.com/esim_qrcode_provisioning?carddata=LPA%3A1%24smdp.example.com%24MATCH-1',
          }
        : null,
    failureReason: status === 'failed' ? 'supplier rejected the SKU' : null,
    createdAt: '2025-01-01T10:00:00.000Z',
    updatedAt: '2025-01-01T10:00:05.000Z',
    livemode: true,
  };
}

/** One notification of each §9 type, for `partnerId`. */
export function everyEventType(partnerId: string): Notification[] {
  const orderA = newId('ord');
  const orderB = newId('ord');
  return [
    {
      partnerId,
      type: 'payment.paid',
      orderId: orderA,
      payload: { orderId: orderA, clientRequestId: 'req-1', amount: 750, currency: 'USD', walletBalance: 9_250 },
    },
    { partnerId, type: 'provision.provisioned', orderId: orderA, payload: { order: orderView(orderA, 'provisioned') } },
    { partnerId, type: 'provision.failed', orderId: orderB, payload: { order: orderView(orderB, 'failed'), refundedAmount: 750 } },
    {
      partnerId,
      type: 'wallet.credited',
      orderId: null,
      payload: {
        ledgerEntry: {
          id: newId('led'),
          type: 'topup',
          amount: 10_000,
          balanceAfter: 19_250,
          orderId: null,
          reference: 'wire-42',
          description: 'Top-up',
          createdAt: '2025-01-01T09:00:00.000Z',
          livemode: true,
        },
        walletBalance: 19_250,
      },
    },
    { partnerId, type: 'webhook.test', orderId: null, payload: { message: 'This is a test event from Test Platform.' } },
    { partnerId, type: 'esim.installed', orderId: orderA, payload: { esim: esimView(orderA) } },
    { partnerId, type: 'esim.usage_threshold', orderId: orderA, payload: { esim: esimView(orderA), bundle: esimView(orderA).bundles[0]!, threshold: 80 } },
    { partnerId, type: 'esim.bundle_expired', orderId: orderA, payload: { esim: esimView(orderA), bundle: esimView(orderA).bundles[0]! } },
    { partnerId, type: 'order.cancelled', orderId: orderB, payload: { order: { ...orderView(orderB, 'provisioned'), status: 'cancelled' }, refundedAmount: 750 } },
  ];
}

/** An eSIM view as partners see it (contract §13), one bundle. */
export function esimView(orderId: string) {
  return {
    iccid: '8933000000000000001',
    orderId,
    status: 'installed' as const,
    eid: '89049032000000000000000000000001',
    lastError: null,
    suspended: false,
    smdpAddress: 'smdp.example.com',
    matchingId: 'MATCH-1',
    activationCode: 'LPA:1$smdp.example.com$MATCH-1',
    appleInstallUrl: 'https://esimsetup.apple.com/esim_qrcode_provisioning?carddata=LPA%3A1%24smdp.example.com%24MATCH-1',
    countries: ['FR'],
    region: null,
    usage: { dataTotalMb: 5120, dataUsedMb: 4200, dataRemainingMb: 920, updatedAt: '2025-01-02T10:00:00.000Z' },
    bundles: [
      {
        orderId,
        planId: 'plan_01jd4x5c8v9w2m3n4p5q6r7s8t',
        planName: 'France 5 GB / 30 days',
        dataMb: 5120,
        dataUsedMb: 4200,
        validityDays: 30,
        status: 'active' as const,
        activatedAt: '2025-01-01T12:00:00.000Z',
        expiresAt: '2025-01-31T12:00:00.000Z',
        livemode: true,
      },
    ],
    createdAt: '2025-01-01T10:00:05.000Z',
    updatedAt: '2025-01-02T10:00:00.000Z',
    livemode: true,
  };
}

/** A payment.paid for `orderId` (small, for bursts and ordering tests). */
export function paid(partnerId: string, orderId: string = newId('ord')): Notification {
  return { partnerId, type: 'payment.paid', orderId, payload: { orderId, clientRequestId: `req-${orderId}`, amount: 100, currency: 'USD', walletBalance: 900 } };
}

export function provisioned(partnerId: string, orderId: string): Notification {
  return { partnerId, type: 'provision.provisioned', orderId, payload: { order: orderView(orderId, 'provisioned') } };
}
