// Protects the provisioning step of the order saga (§8, §11): each paid order gets exactly one result event, an eSIM the partner can install or a failure a partner may read, through supplier rejections, transient 503s and repeated events.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@esim/ids';
import { hasValidLuhn } from '../../supplier-sim/src/domain/esimIdentity.js';
import { failureReasons } from '../src/domain/supplierCall.js';
import { startRecordingSupplier, type RecordingSupplier } from './support/recordingSupplier.js';
import { createTestEnv, until, type ProvisioningResult, type TestEnv } from './support/testEnv.js';

let env: TestEnv;
let supplier: RecordingSupplier;

beforeAll(async () => {
  [env, supplier] = await Promise.all([createTestEnv(), startRecordingSupplier()]);
  await env.start({ SUPPLIER_URL: supplier.url });
});
afterAll(async () => {
  await env?.cleanup();
  await supplier?.stop();
});

/** Waits until the order has `count` results and every delivery is acknowledged, so no later result can still appear. */
async function settledResults(orderId: string, count = 1): Promise<ProvisioningResult[]> {
  await until(async () => (await env.results(orderId)).length >= count, `${count} result(s) for ${orderId}`);
  await until(() => env.settled(), 'the consumer to acknowledge every delivery');
  return env.results(orderId);
}

describe('orders.order.paid → provisioning result', () => {
  it('when the SKU is a normal one, then one provisioning.succeeded event carries the eSIM and its LPA activation code', async () => {
    const orderId = newId('ord');
    await env.publishPaid({ orderId, supplierSku: 'ESIM-FR-5GB-30D' });
    const results = await settledResults(orderId);
    expect(results).toHaveLength(1);
    const [result] = results;
    expect(result?.type).toBe('provisioning.succeeded');
    if (result?.type !== 'provisioning.succeeded') return;
    const esim = result.data;
    expect(esim.orderId).toBe(orderId);
    expect(esim.supplierReference).toBe(orderId);
    expect(esim.iccid).toMatch(/^89\d{18}$/);
    expect(hasValidLuhn(esim.iccid)).toBe(true);
    expect(esim.activationCode).toBe(`LPA:1$${esim.smdpAddress}$${esim.matchingId}`);
    expect(supplier.callsFor(orderId)).toBe(1);

    const call = await env.supplierCall(orderId);
    expect(call).toMatchObject({ sku: 'ESIM-FR-5GB-30D', attempts: 1, state: 'succeeded', lastStatusCode: 201, lastError: null, supplierReference: orderId });
    // The operator's record never holds what would let someone install the eSIM.
    const { rows } = await env.pool.query('SELECT * FROM provisioning.supplier_calls WHERE order_id = $1', [orderId]);
    expect(JSON.stringify(rows)).not.toContain(esim.matchingId);
  });

  it('when the supplier rejects the SKU (FAIL-), then one provisioning.failed event whose reason does not name the SKU', async () => {
    const orderId = newId('ord');
    await env.publishPaid({ orderId, supplierSku: 'FAIL-XX-1GB' });
    const results = await settledResults(orderId);
    expect(results.map((r) => r.type)).toEqual(['provisioning.failed']);
    const reason = (results[0]?.data as { reason: string }).reason;
    expect(reason).toBe(failureReasons.rejected);
    expect(reason).not.toContain('FAIL-');
    expect(supplier.callsFor(orderId)).toBe(1);
    const call = await env.supplierCall(orderId);
    expect(call).toMatchObject({ attempts: 1, state: 'failed', lastStatusCode: 422, supplierReference: null });
    expect(call?.lastError).toMatch(/sku_rejected/);
  });

  it('when the supplier answers 503 twice (FLAKY-), then retries bring exactly one provisioning.succeeded after three calls', async () => {
    const orderId = newId('ord');
    await env.publishPaid({ orderId, supplierSku: 'FLAKY-IT-3GB' });
    const results = await settledResults(orderId);
    expect(results.map((r) => r.type)).toEqual(['provisioning.succeeded']);
    expect(supplier.callsFor(orderId)).toBe(3);
    expect(await env.supplierCall(orderId)).toMatchObject({ attempts: 3, state: 'succeeded', lastError: null });
  });

  it('when the same event is delivered twice, then the supplier is called once and one result is published', async () => {
    const orderId = newId('ord');
    const event = await env.publishPaid({ orderId, supplierSku: 'ESIM-DE-10GB-30D' });
    // A new Nats-Msg-Id gets the copy past the stream's duplicate window, as a late republish would.
    await env.publishPaid({ orderId, supplierSku: 'ESIM-DE-10GB-30D' }, { eventId: event.id, msgId: `${event.id}-again`, occurredAt: event.occurredAt });
    const results = await settledResults(orderId);
    expect(results).toHaveLength(1);
    expect(supplier.callsFor(orderId)).toBe(1);
  });

  it('when two different events are paid for the same order, then both results carry the same eSIM', async () => {
    const orderId = newId('ord');
    await env.publishPaid({ orderId, supplierSku: 'ESIM-ES-3GB-15D' });
    await env.publishPaid({ orderId, supplierSku: 'ESIM-ES-3GB-15D' });
    const results = await settledResults(orderId, 2);
    expect(results.map((r) => r.type)).toEqual(['provisioning.succeeded', 'provisioning.succeeded']);
    expect(results[1]?.data).toEqual(results[0]?.data);
    expect(supplier.callsFor(orderId)).toBe(2);
  });
});
