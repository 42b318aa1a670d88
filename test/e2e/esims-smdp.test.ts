// Protects §8 and §13 end to end through the gateway, provisioning's ES2+ listener and the simulator playing the SM-DP+: a failed installation reported over HandleDownloadProgressInfo keeps the eSIM released with lastError and one esim.install_failed webhook; a successful one installs it (with the device's EID); a deletion makes it deleted with esim.deleted; suspension and resumption answer the eSIM view, are idempotent and refused for a cancelled eSIM.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, expectProblem, portalToken, until, withKey, withToken, type Onboarded } from './support/client.js';
import { buy, esimOf, esimWhen, install, planFor, simulator, simulatorView } from './support/esims.js';
import { fundedPartner } from './support/money.js';

const webhooks: Array<{ type: string; body: any }> = [];
let receiver: Server;
let partner: Onboarded;
let other: Onboarded;
let plan: string;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      webhooks.push({ type: String(req.headers['x-service-event-type']), body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  [partner, other] = await Promise.all([fundedPartner(1_000_000), fundedPartner(100_000)]);
  const token = await portalToken(partner.email, partner.password);
  const patched = await api('/partner/me', { method: 'PATCH', body: { webhookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks` }, ...withToken(token) });
  expect(patched.status).toBe(200);
  plan = await planFor(['FR'], 1000, 700);
}, 180_000);

afterAll(async () => {
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

const key = () => partner.apiKey;
const hookFor = (type: string, iccid: string) =>
  until(async () => webhooks.find((w) => w.type === type && w.body.data.esim.iccid === iccid), `the ${type} webhook`, 20_000);

describe('the SM-DP+ reports a profile’s life over ES2+', () => {
  it('when the installation fails, then the eSIM stays released with lastError and the partner gets esim.install_failed', async () => {
    const order = await buy(key(), plan);
    expect(order.status).toBe('provisioned');
    const iccid = order.esim.iccid as string;
    expect(order.esim.activationCode).toBe(`LPA:1$${order.esim.smdpAddress}$${order.esim.matchingId}`);
    const before = await esimOf(key(), iccid);
    expect(before.body).toMatchObject({ status: 'released', eid: null, lastError: null, suspended: false });

    expect((await simulator(`${iccid}/install`, { fail: true })).status).toBe(200);
    const failed = await esimWhen(key(), iccid, (e) => e.lastError !== null, 'lastError recorded');
    expect(failed).toMatchObject({ status: 'released', lastError: { notificationPoint: 4, reasonCode: '4.2' } });
    expect(failed.eid).toMatch(/^\d{32}$/);
    expect(Date.parse(failed.lastError.at)).not.toBeNaN();
    const hook = await hookFor('esim.install_failed', iccid);
    expect(hook.body.data.esim).toMatchObject({ iccid, status: 'released', lastError: { notificationPoint: 4 } });

    // A later successful installation still installs it.
    expect((await install(iccid)).status).toBe(200);
    const installed = await esimWhen(key(), iccid, (e) => e.status === 'installed', 'installed');
    expect(installed.eid).toBe(failed.eid);
    await hookFor('esim.installed', iccid);
  });

  it('when the traveller deletes the profile, then the eSIM is deleted and the partner gets esim.deleted once', async () => {
    const order = await buy(key(), plan);
    const iccid = order.esim.iccid as string;
    expect((await install(iccid)).status).toBe(200);
    await esimWhen(key(), iccid, (e) => e.status === 'installed', 'installed');
    const deleted = await simulator(`${iccid}/delete`);
    expect([deleted.status, deleted.body.status]).toEqual([200, 'deleted']);
    await esimWhen(key(), iccid, (e) => e.status === 'deleted', 'deleted');
    const hook = await hookFor('esim.deleted', iccid);
    expect(hook.body.data.esim).toMatchObject({ iccid, status: 'deleted' });
    expect((await simulator(`${iccid}/delete`)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 500));
    expect(webhooks.filter((w) => w.type === 'esim.deleted' && w.body.data.esim.iccid === iccid)).toHaveLength(1);
    expectProblem(await api(`/partner/esims/${iccid}/suspend`, { method: 'POST', ...withKey(key()) }), 409, 'ESIM_NOT_SUSPENDABLE');
  });

  it('when the simulator is asked about an ICCID it never issued, then 404', async () => {
    expect((await simulator('89000000000000000000/install')).status).toBe(404);
    expect((await simulator('89000000000000000000/delete')).status).toBe(404);
  });
});

describe('suspension', () => {
  it('when an eSIM is suspended and resumed, then each answers the view, is idempotent, reaches the provider and emits one event', async () => {
    const order = await buy(key(), plan);
    const iccid = order.esim.iccid as string;
    const suspended = await api(`/partner/esims/${iccid}/suspend`, { method: 'POST', ...withKey(key()) });
    expect(suspended.status, suspended.text).toBe(200);
    expect(suspended.body).toMatchObject({ iccid, status: 'released', suspended: true });
    expect((await simulatorView(iccid)).body.suspended).toBe(true);
    const again = await api(`/partner/esims/${iccid}/suspend`, { method: 'POST', ...withKey(key()) });
    expect([again.status, again.body.suspended]).toEqual([200, true]);
    await hookFor('esim.suspended', iccid);

    const resumed = await api(`/partner/esims/${iccid}/resume`, { method: 'POST', ...withKey(key()) });
    expect([resumed.status, resumed.body.suspended]).toEqual([200, false]);
    expect((await simulatorView(iccid)).body.suspended).toBe(false);
    expect((await api(`/partner/esims/${iccid}/resume`, { method: 'POST', ...withKey(key()) })).status).toBe(200);
    await hookFor('esim.resumed', iccid);
    await new Promise((r) => setTimeout(r, 500));
    expect(webhooks.filter((w) => w.type === 'esim.suspended' && w.body.data.esim.iccid === iccid)).toHaveLength(1);
    expect(webhooks.filter((w) => w.type === 'esim.resumed' && w.body.data.esim.iccid === iccid)).toHaveLength(1);
  });

  it('when the eSIM is another partner’s, unknown or cancelled, then 404 ESIM_NOT_FOUND or 409 ESIM_NOT_SUSPENDABLE', async () => {
    const order = await buy(key(), plan);
    const iccid = order.esim.iccid as string;
    expectProblem(await api(`/partner/esims/${iccid}/suspend`, { method: 'POST', ...withKey(other.apiKey) }), 404, 'ESIM_NOT_FOUND');
    expectProblem(await api('/partner/esims/89000000000000000000/suspend', { method: 'POST', ...withKey(key()) }), 404, 'ESIM_NOT_FOUND');
    expectProblem(await api('/partner/esims/not-an-iccid/resume', { method: 'POST', ...withKey(key()) }), 404, 'ESIM_NOT_FOUND');
    expect((await api(`/partner/orders/${order.id}/cancel`, { method: 'POST', ...withKey(key()) })).status).toBe(200);
    expectProblem(await api(`/partner/esims/${iccid}/suspend`, { method: 'POST', ...withKey(key()) }), 409, 'ESIM_NOT_SUSPENDABLE');
    expectProblem(await api(`/partner/esims/${iccid}/resume`, { method: 'POST', ...withKey(key()) }), 409, 'ESIM_NOT_SUSPENDABLE');
  });
});
