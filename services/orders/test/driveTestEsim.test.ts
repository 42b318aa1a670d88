// Protects DriveTestEsim, the orders side of §14's test helpers: only a test account's own eSIM is ever driven (a live account is TEST_MODE_ONLY, another account's or a live eSIM is ESIM_NOT_FOUND, both before the simulator is asked), and the answer waits until the eSIM shows what the simulator reports, bounded by the caller's deadline.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountIdOf } from '@esim/ids';
import { ordersV1 } from '@esim/proto';
import { E, notification, provisionedOrder, T } from './support/esims.js';
import { createTestEnv, type OrdersClient, type TestEnv } from './support/testEnv.js';

let env: TestEnv;
let client: OrdersClient;
let plan: { id: string; name: string };

beforeAll(async () => {
  env = await createTestEnv();
  ({ client } = await env.start());
  plan = await env.plan('FR');
});
afterAll(() => env?.cleanup());

const A = ordersV1.TestEsimAction;
/** A funded test account (the fake wallet keys balances by account id). */
const testAccount = () => {
  const account = accountIdOf(env.partner(), false);
  env.wallet.setBalance(account, 100_000);
  return account;
};
const esimOf = async (partnerId: string) => (await provisionedOrder(env, client, { partnerId, planId: plan.id })).iccid!;
const callsFor = (iccid: string) => env.provisioning.controlCalls.filter((call) => call.iccid === iccid);

describe('DriveTestEsim', () => {
  it('when a live account asks, then TEST_MODE_ONLY and the simulator is never asked', async () => {
    const partnerId = env.partner();
    const iccid = await esimOf(partnerId);
    await expect(client.driveTestEsim({ partnerId, iccid, action: A.INSTALL, addMb: 0 })).rejects.toMatchObject({ code: 'TEST_MODE_ONLY' });
    expect(callsFor(iccid)).toEqual([]);
  });

  it('when the eSIM is another account\'s (a live one of the same partner included), then ESIM_NOT_FOUND and the simulator is never asked', async () => {
    const partnerId = env.partner();
    env.wallet.setBalance(accountIdOf(partnerId, false), 100_000);
    const liveIccid = await esimOf(partnerId);
    const otherTestIccid = await esimOf(testAccount());
    for (const iccid of [liveIccid, otherTestIccid, '8900000000000000000001', 'nope']) {
      await expect(client.driveTestEsim({ partnerId: accountIdOf(partnerId, false), iccid, action: A.INSTALL, addMb: 0 })).rejects.toMatchObject({ code: 'ESIM_NOT_FOUND' });
      expect(callsFor(iccid)).toEqual([]);
    }
  });

  it('when usage is not a positive integer, then VALIDATION_ERROR naming addMb', async () => {
    const account = testAccount();
    const iccid = await esimOf(account);
    await expect(client.driveTestEsim({ partnerId: account, iccid, action: A.USAGE, addMb: 0 })).rejects.toThrow(/addMb/);
    expect(callsFor(iccid)).toEqual([]);
  });

  it('when the simulator reports the eSIM installed, then the answer waits until the installation is applied and shows it', async () => {
    const account = testAccount();
    const iccid = await esimOf(account);
    env.provisioning.simulated = { status: 'installed', bundles: [] };
    // The installation's notification lands while the helper waits, as the simulator's does after its 202.
    const applied = new Promise((resolve) => setTimeout(resolve, 300)).then(() => client.recordSupplierNotification(notification(T.ESIM_INSTALLED, iccid)));
    const view = await client.driveTestEsim({ partnerId: account, iccid, action: A.INSTALL, addMb: 0 }, { deadlineMs: 10_000 });
    await applied;
    expect(view.status).toBe(E.INSTALLED);
    expect(callsFor(iccid)).toEqual([{ accountId: account, iccid, action: A.INSTALL, addMb: 0 }]);
  });

  it('when the effects never show within the deadline, then it answers the eSIM as it stands', async () => {
    const account = testAccount();
    const iccid = await esimOf(account);
    env.provisioning.simulated = { status: 'deleted', bundles: [] };
    const view = await client.driveTestEsim({ partnerId: account, iccid, action: A.DELETE, addMb: 0 }, { deadlineMs: 2_000 });
    expect(view.status).toBe(E.RELEASED);
  });

  it('when the simulator cannot act, then UNAVAILABLE', async () => {
    const account = testAccount();
    const iccid = await esimOf(account);
    env.provisioning.simulated = undefined;
    await expect(client.driveTestEsim({ partnerId: account, iccid, action: A.EXPIRE, addMb: 0 })).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });
});
