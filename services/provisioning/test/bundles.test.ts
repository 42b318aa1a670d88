// Protects provisioning's part of §13 against the real simulator: a top-up adds a bundle to the existing eSIM (never a second eSIM), a first order sends its plan's size, and RevokeBundle answers revoked, refused (with the supplier's reason) or UNAVAILABLE.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@esim/ids';
import { provisioningV1 } from '@esim/proto';
import { startRecordingSupplier, type RecordingSupplier } from './support/recordingSupplier.js';
import { createTestEnv, until, type ProvisioningClient, type ProvisioningResult, type TestEnv } from './support/testEnv.js';

let env: TestEnv;
let supplier: RecordingSupplier;
let client: ProvisioningClient;

beforeAll(async () => {
  [env, supplier] = await Promise.all([createTestEnv(), startRecordingSupplier()]);
  client = env.client(await env.start({ SUPPLIER_URL: supplier.url }));
});
afterAll(async () => {
  await env?.cleanup();
  await supplier?.stop();
});

async function provisioned(orderId: string): Promise<Extract<ProvisioningResult, { type: 'provisioning.succeeded' }>['data']> {
  await until(async () => (await env.results(orderId)).length >= 1, `a result for ${orderId}`);
  const [result] = await env.results(orderId);
  if (result?.type !== 'provisioning.succeeded') throw new Error(`${orderId}: ${JSON.stringify(result)}`);
  return result.data;
}

interface SimView {
  status: string;
  bundles: { reference: string; dataMb: number; validityDays: number; status: string }[];
}
const simView = async (iccid: string) => (await (await fetch(`${supplier.upstream}/simulator/esims/${iccid}`)).json()) as SimView;

describe('top-ups at the supplier', () => {
  it('when a top-up is paid, then the bundle is added to the same eSIM with its size, and the result names that eSIM', async () => {
    const first = newId('ord');
    await env.publishPaid({ orderId: first, supplierSku: 'ESIM-FR-5GB-30D', kind: 'esim', iccid: null, dataMb: 5120, validityDays: 30 });
    const esim = await provisioned(first);
    const topUp = newId('ord');
    await env.publishPaid({ orderId: topUp, supplierSku: 'ESIM-FR-1GB-7D', kind: 'topup', iccid: esim.iccid, dataMb: 1024, validityDays: 7 });
    const added = await provisioned(topUp);
    expect(added).toMatchObject({ iccid: esim.iccid, activationCode: esim.activationCode, supplierReference: topUp });
    const view = await simView(esim.iccid);
    expect(view.bundles.map((bundle) => [bundle.reference, bundle.dataMb, bundle.validityDays])).toEqual([
      [first, 5120, 30],
      [topUp, 1024, 7],
    ]);
    expect(supplier.callsFor(topUp)).toBe(1);
  });

  it('when a top-up names an ICCID the supplier never issued, then the order fails for good', async () => {
    const orderId = newId('ord');
    await env.publishPaid({ orderId, supplierSku: 'ESIM-FR-1GB-7D', kind: 'topup', iccid: '8900000000000000000', dataMb: 1024, validityDays: 7 });
    await until(async () => (await env.results(orderId)).length >= 1, 'a result');
    expect((await env.results(orderId)).map((result) => result.type)).toEqual(['provisioning.failed']);
  });
});

describe('RevokeBundle', () => {
  it('when an unused top-up is revoked, then it is REVOKED, again on a repeat, and only that bundle is cancelled at the supplier', async () => {
    const first = newId('ord');
    await env.publishPaid({ orderId: first, supplierSku: 'ESIM-DE-1GB-7D', kind: 'esim', iccid: null });
    const esim = await provisioned(first);
    const topUp = newId('ord');
    await env.publishPaid({ orderId: topUp, supplierSku: 'ESIM-DE-1GB-7D', kind: 'topup', iccid: esim.iccid });
    await provisioned(topUp);
    for (let i = 0; i < 2; i++) {
      expect(await client.revokeBundle({ reference: topUp, iccid: esim.iccid, firstBundle: false })).toMatchObject({ outcome: provisioningV1.RevokeOutcome.REVOKED });
    }
    const view = await simView(esim.iccid);
    expect(view.status).toBe('released');
    expect(view.bundles.map((bundle) => bundle.status)).toEqual(['queued', 'cancelled']);
    expect(await client.revokeBundle({ reference: first, iccid: esim.iccid, firstBundle: true })).toMatchObject({ outcome: provisioningV1.RevokeOutcome.REVOKED });
    // The connectivity provider revoked the subscription, then the SM-DP+ cancelled the never-downloaded profile (ES2+ CancelOrder).
    expect((await simView(esim.iccid)).status).toBe('cancelled');
  });

  it('when the eSIM is installed or the bundle unknown, then it is NOT_REVOKABLE with the supplier\'s reason', async () => {
    const first = newId('ord');
    await env.publishPaid({ orderId: first, supplierSku: 'ESIM-IT-1GB-7D', kind: 'esim', iccid: null });
    const esim = await provisioned(first);
    // The recorder accepts the simulator's esim.installed notification in the platform's place.
    await fetch(`${supplier.upstream}/simulator/esims/${esim.iccid}/install`, { method: 'POST' });
    expect(await client.revokeBundle({ reference: first, iccid: esim.iccid, firstBundle: true })).toEqual(
      expect.objectContaining({ outcome: provisioningV1.RevokeOutcome.NOT_REVOKABLE, detail: 'esim_installed' }),
    );
    expect(await client.revokeBundle({ reference: newId('ord'), iccid: esim.iccid, firstBundle: false })).toEqual(
      expect.objectContaining({ outcome: provisioningV1.RevokeOutcome.NOT_REVOKABLE, detail: 'not_found' }),
    );
  });

  it('when the request is malformed, then it is a VALIDATION_ERROR', async () => {
    await expect(client.revokeBundle({ reference: 'nope', iccid: '12', firstBundle: false })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });
});
