// Protects test mode's supply (contract §14): a test account's orders and every later upstream call (revoke, suspend, the test helpers' control API) reach the test-mode upstreams only, live ones the live upstreams only; magic e-mails steer only test orders; a test-data wipe removes that account's rows and no live row.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountIdOf, newId } from '@esim/ids';
import { provisioningV1 } from '@esim/proto';
import { failureReasons } from '../src/domain/supplierCall.js';
import { startRecordingSupplier, type RecordingSupplier } from './support/recordingSupplier.js';
import { createTestEnv, livePartnerId, until, type ProvisioningClient, type ProvisioningResult, type TestEnv } from './support/testEnv.js';

let env: TestEnv;
let live: RecordingSupplier;
let test: RecordingSupplier;
let client: ProvisioningClient;
const testAccount = accountIdOf(newId('ptn'), false);

beforeAll(async () => {
  [env, live, test] = await Promise.all([createTestEnv(), startRecordingSupplier(), startRecordingSupplier()]);
  // Two simulators: the live upstreams are "somewhere else", so each call's destination is observable.
  const running = await env.start({
    SMDP_ES2_URL: live.url,
    CONNECTIVITY_URL: live.url,
    TEST_MODE_SMDP_ES2_URL: test.url,
    TEST_MODE_CONNECTIVITY_URL: test.url,
  });
  client = env.client(running);
});
afterAll(async () => {
  await env?.cleanup();
  await Promise.all([live?.stop(), test?.stop()]);
});

async function settledResult(orderId: string): Promise<ProvisioningResult> {
  await until(async () => (await env.results(orderId)).length >= 1, `a result for ${orderId}`);
  await until(() => env.settled(), 'the consumer to acknowledge every delivery');
  const results = await env.results(orderId);
  expect(results).toHaveLength(1);
  return results[0]!;
}

async function provisioned(partnerId: string, customerEmail?: string): Promise<{ orderId: string; iccid: string }> {
  const orderId = newId('ord');
  await env.publishPaid({ orderId, partnerId, supplierSku: 'ESIM-FR-5GB-30D', ...(customerEmail ? { customerEmail } : {}) });
  const result = await settledResult(orderId);
  expect(result.type).toBe('provisioning.succeeded');
  return { orderId, iccid: (result.data as { iccid: string }).iccid };
}

async function simulatorStatus(supplier: RecordingSupplier, iccid: string): Promise<number> {
  return (await fetch(`${supplier.upstream}/simulator/esims/${iccid}`)).status;
}

describe('routing by mode', () => {
  it('when a test account\'s order is paid, then the test-mode simulator provisions it and the live upstream never hears of it', async () => {
    const { orderId, iccid } = await provisioned(testAccount);
    expect(test.callsFor(orderId)).toBe(1);
    expect(live.callsFor(orderId)).toBe(0);
    expect(await simulatorStatus(test, iccid)).toBe(200);
    expect(await simulatorStatus(live, iccid)).toBe(404);
    expect(await env.supplierCall(orderId)).toMatchObject({ state: 'succeeded', attempts: 1 });
  });

  it('when a live account\'s order is paid, then the live upstream provisions it and the test simulator never hears of it', async () => {
    const { orderId, iccid } = await provisioned(livePartnerId);
    expect(live.callsFor(orderId)).toBe(1);
    expect(test.callsFor(orderId)).toBe(0);
    expect(await simulatorStatus(live, iccid)).toBe(200);
    expect(await simulatorStatus(test, iccid)).toBe(404);
  });

  it('when a test account tops up its eSIM, then the bundle is added at the test simulator only, on the same ICCID', async () => {
    const { iccid } = await provisioned(testAccount);
    const orderId = newId('ord');
    await env.publishPaid({ orderId, partnerId: testAccount, supplierSku: 'ESIM-FR-1GB-7D', kind: 'topup', iccid });
    const result = await settledResult(orderId);
    expect(result).toMatchObject({ type: 'provisioning.succeeded', data: { orderId, iccid } });
    expect(test.callsFor(orderId)).toBe(1);
    expect(live.callsFor(orderId)).toBe(0);
  });

  it('when a test order is revoked or suspended, then the call reaches the test simulator (the live one does not know the bundle)', async () => {
    const { orderId, iccid } = await provisioned(testAccount);
    const suspended = await client.setSuspended({ iccid, suspended: true, accountId: testAccount });
    expect(suspended).toMatchObject({ outcome: provisioningV1.SuspensionOutcome.DONE, suspended: true });
    // The same call without the account is live: the live upstream has no such eSIM.
    const liveAsk = await client.setSuspended({ iccid, suspended: false, accountId: '' });
    expect(liveAsk.outcome).toBe(provisioningV1.SuspensionOutcome.NOT_SUSPENDABLE);
    const revoked = await client.revokeBundle({ reference: orderId, iccid, firstBundle: true, accountId: testAccount });
    expect(revoked.outcome).toBe(provisioningV1.RevokeOutcome.REVOKED);
    const view = (await (await fetch(`${test.upstream}/simulator/esims/${iccid}`)).json()) as { status: string };
    // Revoked at the provider, then the never-downloaded profile cancelled at the SM-DP+ (both the test simulator).
    expect(view.status).toBe('cancelled');
  });

  it('when GetProvisioning is asked about a test order with its account, then it answers from the record (SUCCEEDED)', async () => {
    const { orderId, iccid } = await provisioned(testAccount);
    const answer = await client.getProvisioning({ orderId, accountId: testAccount });
    expect(answer.state).toBe(provisioningV1.ProvisioningState.SUCCEEDED);
    expect(answer.esim?.iccid).toBe(iccid);
  });

  it('when an RPC names something that is not an account id, then VALIDATION_ERROR and no upstream is called', async () => {
    await expect(client.setSuspended({ iccid: '8900000000000000001', suspended: true, accountId: 'nobody' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });
});

describe('magic customer e-mails', () => {
  it('when a test order\'s customer is provision.fail@example.com, then it fails for good with the rejection reason', async () => {
    const orderId = newId('ord');
    await env.publishPaid({ orderId, partnerId: testAccount, supplierSku: 'ESIM-FR-5GB-30D', customerEmail: 'provision.fail@example.com' });
    const result = await settledResult(orderId);
    expect(result).toMatchObject({ type: 'provisioning.failed', data: { orderId, reason: failureReasons.rejected } });
    expect(test.callsFor(orderId)).toBe(1);
    // The record keeps the plan's SKU: the steering is between provisioning and the simulator only.
    expect(await env.supplierCall(orderId)).toMatchObject({ state: 'failed', sku: 'ESIM-FR-5GB-30D', attempts: 1 });
  });

  it('when a test order\'s customer is provision.flaky@example.com (any case), then two transient failures are retried and it is provisioned', async () => {
    const orderId = newId('ord');
    await env.publishPaid({ orderId, partnerId: testAccount, supplierSku: 'ESIM-FR-5GB-30D', customerEmail: 'Provision.Flaky@Example.com' });
    const result = await settledResult(orderId);
    expect(result.type).toBe('provisioning.succeeded');
    expect(test.callsFor(orderId)).toBe(3);
    expect(await env.supplierCall(orderId)).toMatchObject({ state: 'succeeded', attempts: 3, sku: 'ESIM-FR-5GB-30D' });
  });

  it('when a live order carries a magic e-mail, then it is provisioned normally, at the live upstream, in one call', async () => {
    for (const email of ['provision.fail@example.com', 'provision.flaky@example.com']) {
      const { orderId } = await provisioned(livePartnerId, email);
      expect(live.callsFor(orderId)).toBe(1);
      expect(test.callsFor(orderId)).toBe(0);
    }
  });
});

describe('ControlTestEsim (the test helpers\' simulator control)', () => {
  it('when a test account installs and uses data on its eSIM, then the test simulator acts and answers its view', async () => {
    const { orderId, iccid } = await provisioned(testAccount);
    const installed = await client.controlTestEsim({ accountId: testAccount, iccid, action: provisioningV1.TestEsimAction.INSTALL, addMb: 0 });
    expect(installed.status).toBe('installed');
    const used = await client.controlTestEsim({ accountId: testAccount, iccid, action: provisioningV1.TestEsimAction.USAGE, addMb: 120 });
    expect(used.bundles).toEqual([expect.objectContaining({ reference: orderId, dataUsedMb: 120 })]);
    const expired = await client.controlTestEsim({ accountId: testAccount, iccid, action: provisioningV1.TestEsimAction.EXPIRE, addMb: 0 });
    expect(expired.bundles[0]?.status).toBe('expired');
  });

  it('when a live account asks, then TEST_MODE_ONLY (403) and no simulator acts', async () => {
    const { iccid } = await provisioned(livePartnerId);
    await expect(client.controlTestEsim({ accountId: livePartnerId, iccid, action: provisioningV1.TestEsimAction.INSTALL, addMb: 0 })).rejects.toMatchObject({
      code: 'TEST_MODE_ONLY',
    });
    const view = (await (await fetch(`${live.upstream}/simulator/esims/${iccid}`)).json()) as { status: string };
    expect(view.status).toBe('released');
  });

  it('when the ICCID is one the test simulator never issued (a live eSIM), then ESIM_NOT_FOUND', async () => {
    const { iccid } = await provisioned(livePartnerId);
    await expect(client.controlTestEsim({ accountId: testAccount, iccid, action: provisioningV1.TestEsimAction.DELETE, addMb: 0 })).rejects.toMatchObject({ code: 'ESIM_NOT_FOUND' });
  });

  it('when usage is not a positive number of megabytes, then VALIDATION_ERROR naming addMb', async () => {
    const { iccid } = await provisioned(testAccount);
    await expect(client.controlTestEsim({ accountId: testAccount, iccid, action: provisioningV1.TestEsimAction.USAGE, addMb: 0 })).rejects.toThrow(/addMb/);
  });
});

describe('test-data deletion (partners.test_data.delete_requested)', () => {
  it('when a test account\'s data is wiped, then its supplier records and SM-DP+ orders go, a live account\'s stay, and a repeat changes nothing', async () => {
    const account = accountIdOf(newId('ptn'), false);
    const testOrders = [await provisioned(account), await provisioned(account)];
    const liveOrder = await provisioned(livePartnerId);
    const count = async (orderIds: string[]) => {
      const { rows } = await env.pool.query<{ calls: string; smdp: string }>(
        `SELECT (SELECT count(*) FROM provisioning.supplier_calls WHERE order_id = ANY($1)) AS calls,
                (SELECT count(*) FROM provisioning.smdp_orders WHERE order_id = ANY($1)) AS smdp`,
        [orderIds],
      );
      return { calls: Number(rows[0]!.calls), smdp: Number(rows[0]!.smdp) };
    };
    const testIds = testOrders.map((order) => order.orderId);
    expect(await count(testIds)).toEqual({ calls: 2, smdp: 2 });
    for (let i = 0; i < 2; i += 1) {
      await env.publish('partners.test_data.delete_requested', { accountId: account, requestedAt: new Date().toISOString() });
    }
    await until(async () => (await count(testIds)).calls === 0 && (await count(testIds)).smdp === 0, 'the test rows to be deleted');
    expect(await count([liveOrder.orderId])).toEqual({ calls: 1, smdp: 1 });
    // The other test account's rows are not this account's: untouched.
    const { rows } = await env.pool.query<{ n: string }>('SELECT count(*) AS n FROM provisioning.supplier_calls WHERE account_id = $1', [testAccount]);
    expect(Number(rows[0]!.n)).toBeGreaterThan(0);
  });
});
