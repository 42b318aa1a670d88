// Protects how the SM-DP+'s ES2+ reports (provisioning.esim.progress) become eSIM state (contract §8, §13): a successful installation installs once whichever upstream reports it first, a failed download or installation keeps the eSIM released with lastError and emits esim.install_failed, a deletion makes it deleted with esim.deleted, the EID is recorded, a report is applied once per id, and one that arrives before the eSIM is applied when it is recorded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventData } from '@esim/events';
import { E, esimEvents, notification, provisionedOrder, T } from './support/esims.js';
import { createTestEnv, eventually, newIccid, type OrdersClient, type TestEnv } from './support/testEnv.js';

let env: TestEnv;
let client: OrdersClient;
let plan: { id: string; name: string };

beforeAll(async () => {
  env = await createTestEnv();
  ({ client } = await env.start());
  plan = await env.plan('FR');
});
afterAll(() => env?.cleanup());

const eid = '89049032123451234512345678901235';
let seq = 0;
const report = (iccid: string, effect: EventData<'provisioning.esim.progress'>['effect'], extra: Partial<EventData<'provisioning.esim.progress'>> = {}) => ({
  notificationId: `es2_test${Date.now()}${seq++}`,
  iccid,
  eid,
  effect,
  notificationPoint: effect === 'deleted' ? 5 : 4,
  status: effect === 'install_failed' ? 'Failed' : 'Executed-Success',
  reasonCode: effect === 'install_failed' ? '4.2' : null,
  message: effect === 'install_failed' ? 'BPP installation failed' : null,
  occurredAt: new Date().toISOString(),
  ...extra,
});
const esimOf = async (partnerId: string) => {
  const order = await provisionedOrder(env, client, { partnerId, planId: plan.id });
  return { order, iccid: order.iccid! };
};
const types = async (orderId: string) => (await esimEvents(env, orderId)).map((event) => event.type);

describe('the SM-DP+’s reports', () => {
  it('when an installation fails and then succeeds, then lastError and esim.install_failed, then installed with its EID, each once', async () => {
    const partnerId = env.partner();
    const { order, iccid } = await esimOf(partnerId);
    const failed = report(iccid, 'install_failed', { notificationPoint: 3 });
    await env.publish('provisioning.esim.progress', failed);
    await env.publish('provisioning.esim.progress', failed, { msgId: `again-${failed.notificationId}` });
    expect(await eventually(async () => (await client.getEsim({ partnerId, iccid })).lastError !== undefined, 10_000)).toBe(true);
    const afterFailure = await client.getEsim({ partnerId, iccid });
    expect(afterFailure).toMatchObject({ status: E.RELEASED, eid, lastError: { notificationPoint: 3, reasonCode: '4.2', message: 'BPP installation failed' } });
    await env.publish('provisioning.esim.progress', report(iccid, 'installed'));
    expect(await eventually(async () => (await client.getEsim({ partnerId, iccid })).status === E.INSTALLED, 10_000)).toBe(true);
    // The provider's first attach, later: applied once already.
    await client.recordSupplierNotification(notification(T.ESIM_INSTALLED, iccid));
    expect(await types(order.id)).toEqual(['esim.install_failed', 'esim.installed']);
    const [failedEvent] = await esimEvents(env, order.id);
    expect(failedEvent!.payload).toMatchObject({ esim: { iccid, status: 'released', eid, lastError: { notificationPoint: 3, reasonCode: '4.2' } } });
  });

  it('when the profile is deleted, then the eSIM is deleted and esim.deleted emitted once', async () => {
    const partnerId = env.partner();
    const { order, iccid } = await esimOf(partnerId);
    await client.recordSupplierNotification(notification(T.ESIM_INSTALLED, iccid));
    await env.publish('provisioning.esim.progress', report(iccid, 'deleted'));
    await env.publish('provisioning.esim.progress', report(iccid, 'deleted'));
    expect(await eventually(async () => (await client.getEsim({ partnerId, iccid })).status === E.DELETED, 10_000)).toBe(true);
    expect(await types(order.id)).toEqual(['esim.installed', 'esim.deleted']);
    await expect(client.setEsimSuspended({ partnerId, iccid, suspended: true })).rejects.toMatchObject({ code: 'ESIM_NOT_SUSPENDABLE' });
  });

  it('when a report arrives before its eSIM is recorded, then it is kept and applied once the eSIM is', async () => {
    const iccid = newIccid();
    await env.publish('provisioning.esim.progress', report(iccid, 'none', { notificationPoint: 1 }));
    const kept = async () => (await env.pool.query(`SELECT 1 FROM orders.supplier_notifications WHERE iccid = $1 AND applied_at IS NULL`, [iccid])).rows.length === 1;
    expect(await eventually(kept, 10_000)).toBe(true);
  });
});

describe('suspension', () => {
  it('when an eSIM is suspended twice and resumed, then the view follows and one event each is written', async () => {
    const partnerId = env.partner();
    const { order, iccid } = await esimOf(partnerId);
    expect(await client.setEsimSuspended({ partnerId, iccid, suspended: true })).toMatchObject({ iccid, suspended: true });
    expect(await client.setEsimSuspended({ partnerId, iccid, suspended: true })).toMatchObject({ suspended: true });
    expect(await client.setEsimSuspended({ partnerId, iccid, suspended: false })).toMatchObject({ suspended: false });
    expect(await types(order.id)).toEqual(['esim.suspended', 'esim.resumed']);
    await expect(client.setEsimSuspended({ partnerId: env.partner(), iccid, suspended: true })).rejects.toMatchObject({ code: 'ESIM_NOT_FOUND' });
  });

  it('when the provider cannot be reached, then UNAVAILABLE and nothing changes', async () => {
    const partnerId = env.partner();
    const { order, iccid } = await esimOf(partnerId);
    env.provisioning.mode = 'down';
    try {
      await expect(client.setEsimSuspended({ partnerId, iccid, suspended: true })).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    } finally {
      env.provisioning.mode = 'revoke';
    }
    expect((await client.getEsim({ partnerId, iccid })).suspended).toBe(false);
    expect(await types(order.id)).toEqual([]);
  });
});
