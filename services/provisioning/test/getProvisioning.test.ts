// Protects GetProvisioning, the orders sweeper's question when a result event was lost: it answers what the event said (the same eSIM, the same failure reason), and tells "still trying" from "never heard of it".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@esim/ids';
import { provisioningV1 } from '@esim/proto';
import { failureReasons } from '../src/domain/supplierCall.js';
import { recordSupplierCall } from '../src/store/supplierCalls.js';
import { startRecordingSupplier, type RecordingSupplier } from './support/recordingSupplier.js';
import { createTestEnv, until, type ProvisioningClient, type ProvisioningResult, type TestEnv } from './support/testEnv.js';

const State = provisioningV1.ProvisioningState;

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

async function resultOf(orderId: string): Promise<ProvisioningResult> {
  await until(async () => (await env.results(orderId)).length >= 1, `a result for ${orderId}`);
  return (await env.results(orderId))[0]!;
}

describe('GetProvisioning', () => {
  it('when the order was provisioned, then it answers SUCCEEDED with exactly the eSIM provisioning.succeeded carried', async () => {
    const orderId = newId('ord');
    await env.publishPaid({ orderId, supplierSku: 'ESIM-FR-5GB-30D', dataMb: 5120, validityDays: 30 });
    const result = await resultOf(orderId);
    if (result.type !== 'provisioning.succeeded') throw new Error(JSON.stringify(result));
    const { orderId: _, partnerId: __, ...esim } = result.data;

    const answer = await client.getProvisioning({ orderId });
    expect(answer.state).toBe(State.SUCCEEDED);
    expect({ ...answer.esim }).toMatchObject(esim);
    expect(answer.failureReason).toBe('');
    // Answered from the profile the SM-DP+ released (ES2+ has no read function): no upstream call, nothing new published.
    expect(supplier.callsFor(orderId)).toBe(1);
    expect(await env.results(orderId)).toHaveLength(1);
  });

  it('when a top-up was provisioned, then SUCCEEDED names the eSIM it was added to', async () => {
    const first = newId('ord');
    await env.publishPaid({ orderId: first, supplierSku: 'ESIM-FR-5GB-30D', kind: 'esim', iccid: null, dataMb: 5120, validityDays: 30 });
    const firstResult = await resultOf(first);
    if (firstResult.type !== 'provisioning.succeeded') throw new Error(JSON.stringify(firstResult));
    const topUp = newId('ord');
    await env.publishPaid({ orderId: topUp, supplierSku: 'ESIM-FR-1GB-7D', kind: 'topup', iccid: firstResult.data.iccid, dataMb: 1024, validityDays: 7 });
    await resultOf(topUp);

    const answer = await client.getProvisioning({ orderId: topUp });
    expect(answer.state).toBe(State.SUCCEEDED);
    expect(answer.esim).toMatchObject({ supplierReference: topUp, iccid: firstResult.data.iccid, activationCode: firstResult.data.activationCode });
  });

  it('when the supplier rejected the order, then it answers FAILED with the reason provisioning.failed carried', async () => {
    const orderId = newId('ord');
    await env.publishPaid({ orderId, supplierSku: 'FAIL-XX-1GB' });
    const result = await resultOf(orderId);
    expect(result.type).toBe('provisioning.failed');

    const answer = await client.getProvisioning({ orderId });
    expect(answer).toMatchObject({ state: State.FAILED, failureReason: failureReasons.rejected });
    expect(answer.esim).toBeUndefined();
    expect(supplier.callsFor(orderId)).toBe(1);
  });

  it('when the supplier is still being retried, then it answers IN_PROGRESS without calling the supplier', async () => {
    const orderId = newId('ord');
    // Written as a transient failure inside the window leaves it (the consumer would be waiting out its backoff).
    await recordSupplierCall(env.pool, {
      orderId,
      accountId: newId('ptn'),
      sku: 'ESIM-FR-5GB-30D',
      state: 'pending',
      statusCode: 503,
      error: 'HTTP 503',
      supplierReference: null,
      request: { kind: 'esim', targetIccid: null, dataMb: 5120, validityDays: 30 },
      failureReason: null,
    });
    expect(await client.getProvisioning({ orderId })).toMatchObject({ state: State.IN_PROGRESS, failureReason: '' });
    expect(supplier.callsFor(orderId)).toBe(0);
  });

  it('when provisioning never received the order, then it answers UNKNOWN', async () => {
    const orderId = newId('ord');
    expect(await client.getProvisioning({ orderId })).toMatchObject({ state: State.UNKNOWN });
    expect(supplier.callsFor(orderId)).toBe(0);
  });

  it('when the order id is malformed, then it is VALIDATION_ERROR', async () => {
    await expect(client.getProvisioning({ orderId: 'nope' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });
});
