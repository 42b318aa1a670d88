// Protects §13 end to end through the gateway, the real services and the supplier simulator: the eSIM view, installation and use reported by signed notifications (each applied once, in order), thresholds, top-ups on the same ICCID, and cancellation with its refund; money stays exact after every scenario.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { admin, api, call, expectInvalidField, expectProblem, platform, portalToken, until, withKey, withToken, type Onboarded } from './support/client.js';
import { buy, esimOf, esimWhen, install, ledgerOf, notificationId, notify, planFor, simulatorView, usageNotification, use } from './support/esims.js';
import { db, fundedPartner, ledgerViolations, orderBody, partnerEventsInStream, planWithSku } from './support/money.js';

const pool = db();
const webhooks: Array<{ type: string; body: any }> = [];
let receiver: Server;
let partner: Onboarded;
let other: Onboarded;
let plans: { fr: string; europe: string; germany: string; small: string };

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
  // Onboarding hashes a password (scrypt): on a starved CPU the first calls can time out (503); a new applicant retries.
  const onboard = async (balance: number) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await fundedPartner(balance);
      } catch (error) {
        if (attempt >= 4) throw error;
        await new Promise((r) => setTimeout(r, 2_000));
      }
    }
  };
  [partner, other] = await Promise.all([onboard(1_000_000), onboard(100_000)]);
  const token = await portalToken(partner.email, partner.password);
  const patched = await api('/partner/me', { method: 'PATCH', body: { webhookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks` }, ...withToken(token) });
  expect(patched.status).toBe(200);
  plans = {
    fr: await planFor(['FR'], 1000, 700),
    europe: await planFor(['FR', 'DE', 'IT'], 500, 400),
    germany: await planFor(['DE'], 1000, 600),
    small: await planFor(['FR'], 100, 300),
  };
}, 120_000);

afterEach(async () => {
  for (const who of [partner, other]) expect(await ledgerViolations(pool, who.id), `ledger of ${who.id}`).toEqual([]);
});

afterAll(async () => {
  await pool.end();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

const key = () => partner.apiKey;
const eventsOf = async (type: string, iccid: string) => (await partnerEventsInStream(partner.id)).filter((e) => e.type === type && e.payload.esim?.iccid === iccid);

describe('an eSIM after the sale', () => {
  it('when an order is provisioned, then the order names its eSIM and the eSIM view shows it released with one queued bundle', async () => {
    const order = await buy(key(), plans.fr);
    expect(order).toMatchObject({ status: 'provisioned', kind: 'esim', iccid: order.esim.iccid });
    expect(order.esim.appleInstallUrl).toBe(`https://esimsetup.apple.com/esim_qrcode_provisioning?carddata=${encodeURIComponent(order.esim.activationCode)}`);
    const esim = (await esimOf(key(), order.esim.iccid)).body;
    expect(esim).toMatchObject({
      iccid: order.esim.iccid,
      orderId: order.id,
      status: 'released',
      activationCode: order.esim.activationCode,
      appleInstallUrl: order.esim.appleInstallUrl,
      countries: ['FR'],
      region: null,
      usage: { dataTotalMb: 1000, dataUsedMb: 0, dataRemainingMb: 1000 },
      bundles: [{ orderId: order.id, planId: plans.fr, dataMb: 1000, dataUsedMb: 0, validityDays: 30, status: 'queued', activatedAt: null, expiresAt: null }],
    });
    const listed = await api('/partner/esims?status=released&limit=100', withKey(key()));
    expect(listed.body.data.map((e: any) => e.iccid)).toContain(order.esim.iccid);
    const twin = await api(`/partner/me/esims/${order.esim.iccid}`, withToken(await portalToken(partner.email, partner.password)));
    expect(twin.body).toEqual(esim);
  });

  it('when an operator reads eSIMs, then any partner’s are listed with their partner id, and one reads like the partner’s view', async () => {
    const order = await buy(other.apiKey, plans.fr);
    const iccid = order.esim.iccid as string;
    const listed = await admin(`/esims?partnerId=${other.id}&status=released&limit=100`);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((e: any) => [e.iccid, e.partnerId])).toContainEqual([iccid, other.id]);
    const one = await admin(`/esims/${iccid}`);
    expect(one.body).toEqual({ ...(await esimOf(other.apiKey, iccid)).body, partnerId: other.id });
    expectProblem(await admin('/esims/8999000000000000000001'), 404, 'ESIM_NOT_FOUND');
    expectInvalidField(await admin('/esims?status=lost'), 'status');
  });

  it('when the traveller installs it, then the eSIM is installed and the partner gets one esim.installed webhook', async () => {
    const order = await buy(key(), plans.fr);
    const iccid = order.esim.iccid as string;
    expect((await install(iccid)).status).toBe(200);
    await esimWhen(key(), iccid, (e) => e.status === 'installed', 'installed');
    const hook = await until(async () => webhooks.find((w) => w.type === 'esim.installed' && w.body.data.esim.iccid === iccid), 'the esim.installed webhook', 20_000);
    expect(hook.body.data.esim).toMatchObject({ iccid, status: 'installed', orderId: order.id });
    expect((await install(iccid)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 500));
    expect(await eventsOf('esim.installed', iccid)).toHaveLength(1);
  });

  it('when use reaches 80 %, then exactly one threshold event, even when the same use is reported again and out of order', async () => {
    const order = await buy(key(), plans.fr);
    const iccid = order.esim.iccid as string;
    expect((await use(iccid, 820)).status).toBe(200);
    await esimWhen(key(), iccid, (e) => e.bundles[0].dataUsedMb === 820, '820 MB used');
    // The supplier repeats itself (new ids, same cumulative use) and a late, lower report arrives last.
    for (let i = 0; i < 3; i++) expect((await notify(usageNotification(iccid, order.id, 820))).status).toBe(202);
    expect((await notify(usageNotification(iccid, order.id, 500, new Date(Date.now() - 60_000).toISOString()))).status).toBe(202);
    const esim = await esimWhen(key(), iccid, (e) => e.status === 'installed', 'installed by the use');
    expect(esim.bundles[0]).toMatchObject({ dataUsedMb: 820, status: 'active', activatedAt: expect.any(String), expiresAt: expect.any(String) });
    expect(esim.usage).toMatchObject({ dataTotalMb: 1000, dataUsedMb: 820, dataRemainingMb: 180 });
    await new Promise((r) => setTimeout(r, 500));
    const thresholds = await eventsOf('esim.usage_threshold', iccid);
    expect(thresholds.map((e) => e.payload.threshold)).toEqual([80]);
    expect(thresholds[0]!.payload.bundle).toMatchObject({ orderId: order.id, dataUsedMb: 820 });
  });

  it('when a top-up is bought, then it is a queued bundle on the same ICCID; at 100 % the first is depleted and the top-up active', async () => {
    const first = await buy(key(), plans.fr);
    const iccid = first.esim.iccid as string;
    const topup = await buy(key(), plans.europe, iccid);
    expect(topup).toMatchObject({ status: 'provisioned', kind: 'topup', iccid });
    expect(topup.esim).toMatchObject({ iccid, activationCode: first.esim.activationCode, qrCode: first.esim.qrCode });
    const before = (await esimOf(key(), iccid)).body;
    expect(before.bundles.map((b: any) => [b.orderId, b.status])).toEqual([
      [first.id, 'queued'],
      [topup.id, 'queued'],
    ]);
    expect(before.usage.dataTotalMb).toBe(1500);

    expect((await use(iccid, 1100)).status).toBe(200);
    const after = await esimWhen(key(), iccid, (e) => e.bundles[1].dataUsedMb === 100, 'the top-up in use');
    expect(after.bundles[0]).toMatchObject({ status: 'depleted', dataUsedMb: 1000 });
    expect(after.bundles[1]).toMatchObject({ status: 'active', dataUsedMb: 100, activatedAt: expect.any(String) });
    expect(after.usage).toMatchObject({ dataTotalMb: 1500, dataUsedMb: 1100, dataRemainingMb: 400 });
    await new Promise((r) => setTimeout(r, 500));
    const thresholds = (await eventsOf('esim.usage_threshold', iccid)).map((e) => [e.payload.bundle.orderId, e.payload.threshold]);
    expect(thresholds).toEqual([
      [first.id, 80],
      [first.id, 100],
    ]);
  });

  it('when a depleted eSIM is topped up, then the same ICCID gets more data', async () => {
    const first = await buy(key(), plans.small);
    const iccid = first.esim.iccid as string;
    await use(iccid, 100);
    await esimWhen(key(), iccid, (e) => e.bundles[0].status === 'depleted', 'depleted');
    const topup = await buy(key(), plans.fr, iccid);
    expect(topup).toMatchObject({ status: 'provisioned', iccid });
    const esim = (await esimOf(key(), iccid)).body;
    expect(esim.usage).toMatchObject({ dataTotalMb: 1100, dataUsedMb: 100, dataRemainingMb: 1000 });
    expect(esim.bundles.map((b: any) => b.status)).toEqual(['depleted', expect.stringMatching(/^(queued|active)$/)]);
    expect((await simulatorView(iccid)).body.bundles).toHaveLength(2);
  });

  it('when a top-up does not fit, then 422, 404 or 400, and nothing is debited', async () => {
    const first = await buy(key(), plans.fr);
    const iccid = first.esim.iccid as string;
    const balance = (await api('/partner/wallet', withKey(key()))).body.balance;
    expectProblem(await api('/partner/orders', { body: { ...orderBody(plans.germany), iccid }, ...withKey(key()) }), 422, 'PLAN_NOT_COMPATIBLE');
    expectProblem(await api('/partner/orders', { body: { ...orderBody(plans.europe), iccid }, ...withKey(other.apiKey) }), 404, 'ESIM_NOT_FOUND');
    expectProblem(await api('/partner/orders', { body: { ...orderBody(plans.europe), iccid: '8999000000000000000001' }, ...withKey(key()) }), 404, 'ESIM_NOT_FOUND');
    for (const bad of ['123', 'abc', '1'.repeat(23), 42]) {
      expectInvalidField(await api('/partner/orders', { body: { ...orderBody(plans.europe), iccid: bad }, ...withKey(key()) }), 'iccid');
    }
    expect((await api('/partner/wallet', withKey(key()))).body.balance).toBe(balance);
    expectProblem(await api(`/partner/esims/${iccid}`, withKey(other.apiKey)), 404, 'ESIM_NOT_FOUND');
    expectProblem(await api('/partner/esims/not-an-iccid', withKey(key())), 404, 'ESIM_NOT_FOUND');
  });

  it('when the catalog is asked for an eSIM, then it lists exactly the plans that can top it up', async () => {
    const first = await buy(key(), plans.fr);
    const ids: string[] = [];
    for (let page = 1; ; page++) {
      const answer = await api(`/partner/catalog?iccid=${first.esim.iccid}&limit=100&page=${page}`, withKey(key()));
      expect(answer.status).toBe(200);
      ids.push(...answer.body.data.map((p: any) => p.id));
      for (const plan of answer.body.data) expect(plan.countries).toContain('FR');
      if (page >= answer.body.pagination.totalPages) break;
    }
    expect(ids).toEqual(expect.arrayContaining([plans.fr, plans.europe, plans.small]));
    expect(ids).not.toContain(plans.germany);
    expectProblem(await api(`/partner/catalog?iccid=${first.esim.iccid}`, withKey(other.apiKey)), 404, 'ESIM_NOT_FOUND');
    expectProblem(await api('/partner/catalog?iccid=12', withKey(key())), 404, 'ESIM_NOT_FOUND');
  });
});

describe('the supplier’s notifications', () => {
  it('when the signature is missing, wrong or stale, or the id is replayed, then nothing changes', async () => {
    const order = await buy(key(), plans.fr);
    const iccid = order.esim.iccid as string;
    const usage = usageNotification(iccid, order.id, 300);
    expectProblem(await notify(usage, { header: '' }), 401, 'UNAUTHENTICATED');
    expectProblem(await notify(usage, { secret: 'not-the-platform-secret-at-all' }), 401, 'UNAUTHENTICATED');
    expectProblem(await notify(usage, { at: Math.floor(Date.now() / 1000) - 301 }), 401, 'UNAUTHENTICATED');
    expectInvalidField(await notify({ ...usage, dataUsedMb: -5 }), 'dataUsedMb');
    await new Promise((r) => setTimeout(r, 500));
    expect((await esimOf(key(), iccid)).body.bundles[0].dataUsedMb).toBe(0);

    expect(await notify(usage).then((a) => [a.status, a.body])).toEqual([202, { id: usage.id, status: 'accepted' }]);
    await esimWhen(key(), iccid, (e) => e.bundles[0].dataUsedMb === 300, '300 MB used');
    // The same id again, even claiming more use: a duplicate, applied never.
    expect(await notify({ ...usage, dataUsedMb: 900 }).then((a) => [a.status, a.body])).toEqual([200, { id: usage.id, status: 'duplicate' }]);
    await new Promise((r) => setTimeout(r, 500));
    expect((await esimOf(key(), iccid)).body.bundles[0].dataUsedMb).toBe(300);
    expect(await eventsOf('esim.usage_threshold', iccid)).toEqual([]);
  });

  it('when a notification names an ICCID the platform does not know, then it is still accepted', async () => {
    const answer = await notify({ id: notificationId(), type: 'esim.installed', occurredAt: new Date().toISOString(), iccid: '8999111122223333444' });
    expect(answer.status).toBe(202);
  });
});

describe('cancellation', () => {
  const balanceOf = async (who: Onboarded) => (await api('/partner/wallet', withKey(who.apiKey))).body.balance as number;

  it('when an unused order is cancelled twice, then it is refunded once, the eSIM is cancelled and revoked, and it cannot be topped up', async () => {
    const order = await buy(key(), plans.fr);
    const iccid = order.esim.iccid as string;
    const before = await balanceOf(partner);
    const cancelled = await api(`/partner/orders/${order.id}/cancel`, { method: 'POST', ...withKey(key()) });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body).toMatchObject({ id: order.id, status: 'cancelled', esim: { iccid } });
    const again = await api(`/partner/orders/${order.id}/cancel`, { method: 'POST', body: {}, ...withKey(key()) });
    expect([again.status, again.body.status]).toEqual([200, 'cancelled']);
    expect(await balanceOf(partner)).toBe(before + order.price);
    expect(await ledgerOf(key(), order.id)).toEqual({ debits: 1, refunds: 1, refunded: order.price });
    expect((await esimOf(key(), iccid)).body).toMatchObject({ status: 'cancelled', bundles: [{ status: 'cancelled' }] });
    // The connectivity provider revoked it, then the SM-DP+ cancelled the never-downloaded profile (ES2+ CancelOrder).
    expect((await simulatorView(iccid)).body.status).toBe('cancelled');
    expectProblem(await api('/partner/orders', { body: { ...orderBody(plans.europe), iccid }, ...withKey(key()) }), 409, 'ESIM_NOT_TOPPABLE');
    const events = await until(async () => {
      const found = (await partnerEventsInStream(partner.id)).filter((e) => e.type === 'order.cancelled' && e.orderId === order.id);
      return found.length > 0 ? found : undefined;
    }, 'order.cancelled');
    await new Promise((r) => setTimeout(r, 500));
    expect((await partnerEventsInStream(partner.id)).filter((e) => e.type === 'order.cancelled' && e.orderId === order.id)).toHaveLength(1);
    expect(events[0]!.payload).toMatchObject({ refundedAmount: order.price, order: { id: order.id, status: 'cancelled' } });
  });

  it('when a rule forbids it, then 409 ORDER_NOT_CANCELLABLE and the ledger is untouched', async () => {
    const refused = async (orderId: string, who = partner) => {
      const balance = await balanceOf(who);
      const answer = await api(`/partner/orders/${orderId}/cancel`, { method: 'POST', ...withKey(who.apiKey) });
      expectProblem(answer, 409, 'ORDER_NOT_CANCELLABLE');
      expect(await balanceOf(who)).toBe(balance);
      expect((await ledgerOf(who.apiKey, orderId)).refunds).toBe(0);
      return answer.body.detail as string;
    };
    // Installed.
    const installed = await buy(key(), plans.fr);
    await install(installed.esim.iccid);
    await esimWhen(key(), installed.esim.iccid, (e) => e.status === 'installed', 'installed');
    expect(await refused(installed.id)).toMatch(/install/i);
    // A top-up whose bundle was used.
    const topup = await buy(key(), plans.europe, installed.esim.iccid);
    await use(installed.esim.iccid, 1010);
    await esimWhen(key(), installed.esim.iccid, (e) => e.bundles[1].dataUsedMb === 10, 'the top-up in use');
    expect(await refused(topup.id)).toMatch(/use/i);
    // An eSIM order with a live top-up: refused until the top-up is cancelled, then allowed.
    const first = await buy(key(), plans.fr);
    const pending = await buy(key(), plans.europe, first.esim.iccid);
    expect(await refused(first.id)).toMatch(/top-?up/i);
    expect((await api(`/partner/orders/${pending.id}/cancel`, { method: 'POST', ...withKey(key()) })).status).toBe(200);
    expect((await api(`/partner/orders/${first.id}/cancel`, { method: 'POST', ...withKey(key()) })).status).toBe(200);
    // Another partner's order, and an id that names nothing.
    expectProblem(await api(`/partner/orders/${first.id}/cancel`, { method: 'POST', ...withKey(other.apiKey) }), 404, 'ORDER_NOT_FOUND');
    expectProblem(await api('/partner/orders/nonsense/cancel', { method: 'POST', ...withKey(key()) }), 404, 'ORDER_NOT_FOUND');
  });

  it('when a failed order is cancelled, then 409: it was refunded already, once', async () => {
    const order = await buy(key(), await planWithSku('FAIL'));
    expect(order.status).toBe('failed');
    expectProblem(await api(`/partner/orders/${order.id}/cancel`, { method: 'POST', ...withKey(key()) }), 409, 'ORDER_NOT_CANCELLABLE');
    expect(await ledgerOf(key(), order.id)).toMatchObject({ debits: 1, refunds: 1 });
  });

  it('when the OpenAPI document is read, then the cancel route lists its answers and the supplier route has its own tag', async () => {
    const doc = (await call(platform.publicUrl, '/openapi.json')).body;
    expect(Object.keys(doc.paths['/api/v1/partner/orders/{orderId}/cancel'].post.responses)).toEqual(expect.arrayContaining(['200', '404', '409', '503']));
    expect(doc.paths['/supplier/v1/notifications'].post.tags).toEqual(['Supplier']);
  });
});
