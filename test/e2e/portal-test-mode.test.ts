// Protects §14's journey through the partner portal, in a real Chromium against the real platform: a partner applies, proves its address and, still pending, switches test mode on, creates a test key (shown once), points its test webhooks at a real receiver, credits its test wallet, orders with the key over HTTP, sees the order and its QR code in the portal in test mode only, drives the eSIM with the test helpers, and the receiver gets every event signed with the test secret and marked livemode false.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhooks } from '../../packages/sdk/src/index.js';
import { confirm, consoleSignIn, decodeQr, expectHealthy, notice, portalLogIn, shows, visit } from './support/apps.js';
import { ensureWebBuilt, launchBrowser, openPage, screenshot, type Browser, type WatchedPage } from './support/browser.js';
import { api, asKey, expectProblem, mailedToken, platform, portalToken, uniqueEmail, until, withToken } from './support/client.js';
import { finalOrder, orderBody, planWithSku } from './support/money.js';

let browser: Browser;
let portal: WatchedPage;
let receiver: Server;
/** Every request the test webhook URL received, as it arrived. */
const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];

/** The partner of the journey, filled in as it goes. */
const partner = { id: '', company: `Sandbox Travel ${randomBytes(3).toString('hex')}`, email: uniqueEmail('sandbox'), password: 'a-long-portal-password', testKey: '', prefix: '', testSecret: '' };
let planId: string;
let order: any;

const testKeyPattern = /^sk_test_([a-z0-9]{12})_[A-Za-z0-9]{32,}$/;
const sections = () => portal.page.getByRole('navigation', { name: 'Sections' }).getByRole('link').allInnerTexts();
const testSwitch = () => portal.page.getByRole('switch', { name: 'Test mode' });

/** The events the receiver got, each checked against the test signing secret first (a bad signature fails the test). */
async function verifiedEvents(): Promise<any[]> {
  return Promise.all(received.map(({ headers, body }) => webhooks.verify(body, headers as Record<string, string>, partner.testSecret)));
}

beforeAll(async () => {
  ensureWebBuilt();
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  planId = await planWithSku('E2E-SANDBOX');
  browser = await launchBrowser();
  portal = await openPage(browser, `${platform.publicUrl}/portal/`);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

describe('a partner builds its integration in test mode, before approval', () => {
  it('when a partner applies, opens the e-mailed link and logs in, then its pending account offers the test-mode switch, off by default', async () => {
    const { page } = portal;
    await page.bringToFront();
    await page.getByRole('link', { name: 'Apply for API access' }).click();
    await page.getByLabel('Your name').fill('Sasha Sandbox');
    await page.getByLabel('Company').fill(partner.company);
    await page.getByLabel('E-mail').fill(partner.email);
    await page.getByLabel('Password').fill(partner.password);
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('heading', { name: 'Application received' }).waitFor();

    // The e-mail's link names the configured portal address; the suite's copy listens elsewhere, so the same path and token are opened there.
    const token = await mailedToken(partner.email, 'verify-email');
    await page.goto(`${platform.publicUrl}/portal/verify-email?token=${token}`);
    await shows(page.locator('main'), `${partner.email} is confirmed`);
    await page.getByRole('link', { name: 'Log in' }).click();
    await portalLogIn(page, partner.email, partner.password);

    await shows(page.locator('main'), 'Your application is being reviewed');
    expect(await sections()).toEqual(['Account']);
    expect(await testSwitch().isChecked()).toBe(false);
    expect(await page.getByTestId('test-mode-banner').count()).toBe(0);
    await expectHealthy(portal, 'the pending portal with its test-mode switch');
  });

  it('when the partner switches test mode on, then the portal turns orange, opens the sections and Test tools, and keeps the mode on reload', async () => {
    const { page } = portal;
    await testSwitch().check();
    await shows(page.getByTestId('test-mode-banner'), 'TEST MODE');
    expect(await sections()).toEqual(['Account', 'Test tools', 'Catalog', 'Wallet', 'Orders', 'eSIMs', 'Webhooks']);
    expect(await page.locator('.mode-frame-test nav.tabs').count()).toBe(1);
    await page.reload();
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    expect(await testSwitch().isChecked()).toBe(true);
    expect(await page.evaluate("sessionStorage.getItem('esim.portal.mode')")).toBe('test');
    await expectHealthy(portal, 'the portal in test mode');
    await screenshot(page, 'portal-test-mode');
  });

  it('when the partner creates a test key, then it is shown once in full, listed by its prefix only, and GET /partner/me lists it as a test key', async () => {
    const { page } = portal;
    await visit(portal, '#/test', 'Test tools');
    await page.getByRole('button', { name: 'Create test key' }).click();
    await notice(page, 'shown only this once');
    partner.testKey = (await page.getByTestId('test-key').innerText()).trim();
    expect(partner.testKey).toMatch(testKeyPattern);
    partner.prefix = testKeyPattern.exec(partner.testKey)![1]!;
    const row = page.getByRole('table', { name: 'Test keys' }).getByRole('row').filter({ hasText: `sk_test_${partner.prefix}_…` });
    await shows(row, 'Active');
    expect(await row.innerText()).not.toContain(partner.testKey);
    await expectHealthy(portal, 'Test tools with a new test key');
    await screenshot(page, 'portal-test-key');

    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Test tools' }).waitFor();
    await shows(page.getByRole('table', { name: 'Test keys' }), `sk_test_${partner.prefix}_…`);
    expect(await page.getByTestId('test-key').count()).toBe(0);
    expect(await page.locator('main').innerText()).not.toContain(partner.testKey);

    const me = await api('/partner/me', withToken(await portalToken(partner.email, partner.password)));
    expect(me.status).toBe(200);
    expect(me.body.status).toBe('pending');
    partner.id = me.body.id;
    expect(me.body.testKeys).toEqual([expect.objectContaining({ prefix: partner.prefix, revokedAt: null })]);
    expect(JSON.stringify(me.body)).not.toContain(partner.testKey);
  });

  it('when the partner saves a test webhook URL and makes a test signing secret, then the URL is kept and the secret is shown once', async () => {
    const { page } = portal;
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/sandbox-hooks`;
    await page.getByLabel('Test webhook URL').fill(url);
    await page.getByRole('button', { name: 'Save test webhook URL' }).click();
    await notice(page, `Test events now go to ${url}.`);
    await page.getByRole('button', { name: 'New test signing secret' }).click();
    expect(await confirm(page, 'New secret')).toContain('stops signing test events');
    await notice(page, 'New test signing secret made.');
    partner.testSecret = (await page.getByTestId('test-webhook-secret').innerText()).trim();
    expect(partner.testSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const me = await api('/partner/me', withToken(await portalToken(partner.email, partner.password)));
    expect({ testWebhookUrl: me.body.testWebhookUrl, webhookUrl: me.body.webhookUrl }).toEqual({ testWebhookUrl: url, webhookUrl: null });
    await expectHealthy(portal, 'the test webhook settings');
  });

  it('when the partner credits the test wallet, then the balance shows the credit and the test ledger has a top-up entry', async () => {
    const { page } = portal;
    await page.getByLabel('Amount (USD)').fill('500.00');
    await page.getByRole('button', { name: 'Credit test wallet' }).click();
    await notice(page, 'Credited $500.00 of test money; the test balance is now $500.00.');
    expect(await shows(page.getByTestId('test-wallet-balance'), '$500.00')).toBe('$500.00');
    const wallet = await asKey(partner.testKey, '/partner/wallet');
    expect(wallet.status, wallet.text).toBe(200);
    expect(wallet.body).toMatchObject({ balance: 50_000, livemode: false });
    await visit(portal, '#/wallet', 'Test wallet');
    expect(await shows(page.getByRole('table', { name: 'Ledger entries' }).locator('tbody tr'), 'Topup')).toContain('$500.00');
    expect(await shows(page.getByTestId('wallet-balance'), '$500.00')).toBe('$500.00');
    await expectHealthy(portal, 'the test wallet');
  });

  it('when the key places an order over HTTP, then it is a test order, provisioned by the simulator and paid from the test wallet', async () => {
    const placed = await asKey(partner.testKey, '/partner/orders', { body: orderBody(planId) });
    expect(placed.status, placed.text).toBe(201);
    expect(placed.body).toMatchObject({ status: 'processing', livemode: false });
    order = await finalOrder(partner.testKey, placed.body.id);
    expect(order).toMatchObject({ status: 'provisioned', livemode: false });
    // The portal's views: the test account's order with livemode=false; the live account stays closed while pending (§4).
    const jwt = withToken(await portalToken(partner.email, partner.password));
    const testView = await api(`/partner/me/orders/${order.id}?livemode=false`, jwt);
    expect(testView.status, testView.text).toBe(200);
    expect(testView.body).toMatchObject({ id: order.id, livemode: false });
    expectProblem(await api(`/partner/me/orders/${order.id}`, jwt), 403, 'ACCOUNT_NOT_ACTIVE');
  });

  it('when the partner opens Orders in test mode, then the order and its QR code show, and with test mode off the sections close again', async () => {
    const { page } = portal;
    await visit(portal, '#/orders', 'Orders');
    await page.getByRole('link', { name: order.id }).click();
    await page.getByRole('heading', { level: 1, name: `Order ${order.id}` }).waitFor();
    await shows(page.getByRole('heading', { level: 2 }).filter({ hasText: 'Provisioned' }), 'Test');
    expect(await decodeQr(page.locator('img.qr'))).toBe(order.esim.activationCode);
    expect(await shows(page.getByTestId('activation-code'), order.esim.activationCode)).toBe(order.esim.activationCode);
    expect(await page.getByRole('button', { name: 'Suspend data' }).count()).toBe(0);
    await expectHealthy(portal, 'a test order with its QR code');
    await screenshot(page, 'portal-test-order');

    await testSwitch().uncheck();
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    expect(await sections()).toEqual(['Account']);
    expect(await page.getByTestId('test-mode-banner').count()).toBe(0);
    await testSwitch().check();
    await shows(page.getByTestId('test-mode-banner'), 'TEST MODE');
  });

  it('when the partner presses the test helpers, then each answers the eSIM as it now is: installed, used, its bundle expired, deleted', async () => {
    const { page } = portal;
    await visit(portal, `#/orders/${order.id}`, `Order ${order.id}`);
    const state = page.locator('section', { has: page.getByRole('heading', { name: /Status and use/ }) });

    await page.getByRole('button', { name: 'Install on a device' }).click();
    await notice(page, 'The eSIM is now installed');
    await shows(state.getByRole('heading', { level: 2 }), 'Installed');

    await page.getByLabel('Data to use (MB)').fill('900');
    await page.getByRole('button', { name: 'Add usage' }).click();
    await notice(page, '900 MB used');
    await shows(page.getByTestId('usage-text'), '900 MB used of 1 GB');

    await page.getByRole('button', { name: 'Expire the bundle' }).click();
    await notice(page, 'Expire the bundle: done.');
    await shows(page.getByRole('table', { name: 'Bundles' }).locator('tbody tr').first(), 'Expired');

    await page.getByRole('button', { name: 'Delete from the device' }).click();
    await confirm(page, 'Delete');
    await notice(page, 'The eSIM is now deleted');
    await shows(state.getByRole('heading', { level: 2 }), 'Deleted');
    await expectHealthy(portal, 'the test helpers');
    await screenshot(page, 'portal-test-helpers');

    const esim = await asKey(partner.testKey, `/partner/esims/${order.esim.iccid}`);
    expect(esim.body).toMatchObject({ status: 'deleted', livemode: false });
  });

  it('when the events are delivered, then the test receiver got each one signed with the test secret and marked livemode false, and the portal lists them as test deliveries', async () => {
    const expected = ['wallet.credited', 'provision.provisioned', 'esim.installed', 'esim.usage_threshold', 'esim.bundle_expired', 'esim.deleted'];
    const events = await until(
      async () => {
        const verified = await verifiedEvents();
        const types = new Set(verified.map((e) => e.type));
        return expected.every((type) => types.has(type)) ? verified : undefined;
      },
      `the test receiver to get ${expected.join(', ')}`,
      30_000,
      250,
    );
    expect(events.filter((e) => e.livemode !== false)).toEqual([]);
    const orderEvents = events.filter((e) => e.type === 'provision.provisioned');
    expect(orderEvents.map((e) => e.data.order.id)).toContain(order.id);

    const { page } = portal;
    await visit(portal, '#/webhooks', 'Webhook deliveries');
    const table = page.getByRole('table', { name: 'Webhook deliveries' });
    for (const type of ['esim.deleted', 'provision.provisioned']) await shows(table.getByRole('row').filter({ hasText: type }), 'Succeeded');

    // The test event of test mode: a webhook.test marked livemode false, to the test receiver only.
    const before = received.length;
    await page.getByRole('button', { name: 'Send test event' }).click();
    const queued = /Test event (evt_\w+) queued/.exec(await notice(page, 'Test event'))![1]!;
    const testEvent = await until(async () => (await verifiedEvents()).slice(before).find((e) => e.id === queued), `the test receiver to get ${queued}`, 20_000, 250);
    expect(testEvent).toMatchObject({ type: 'webhook.test', livemode: false });
    await expectHealthy(portal, 'the test deliveries');
    await screenshot(page, 'portal-test-deliveries');
  });

  it('when an operator opens the console lists, then the test order and eSIM show only behind the test-mode switch, in orange, and live stays the default', async () => {
    const operator = await openPage(browser, `${platform.adminUrl}/console/`);
    const { page } = operator;
    await consoleSignIn(page, platform.adminToken);
    await page.getByRole('heading', { name: 'Pending applications' }).waitFor();

    await visit(operator, `#/orders?partnerId=${partner.id}`, 'Orders');
    await shows(page.locator('main'), 'No orders.');
    const listSwitch = page.getByRole('switch', { name: 'Test mode' });
    expect(await listSwitch.isChecked()).toBe(false);
    await listSwitch.check();
    await page.waitForURL(/livemode=false/);
    await shows(page.getByTestId('test-mode-banner'), 'TEST MODE');
    await shows(page.getByRole('table', { name: 'Orders' }).getByRole('row').filter({ hasText: order.id }), 'Provisioned');
    await expectHealthy(operator, 'the console’s test orders');
    await screenshot(page, 'console-test-orders');
    await page.getByRole('link', { name: order.id }).click();
    await page.getByRole('heading', { level: 1, name: `Order ${order.id}` }).waitFor();
    await shows(page.getByRole('heading', { level: 2 }).filter({ hasText: 'Provisioned' }), 'Test');

    await visit(operator, `#/esims?partnerId=${partner.id}&livemode=false`, 'eSIMs');
    await shows(page.getByRole('table', { name: 'eSIMs' }).getByRole('row').filter({ hasText: order.esim.iccid }), 'Deleted');
    await listSwitch.uncheck();
    await page.waitForURL((url) => !url.hash.includes('livemode'));
    await shows(page.locator('main'), 'No eSIMs.');
    expect(await page.getByTestId('test-mode-banner').count()).toBe(0);
    await expectHealthy(operator, 'the console’s eSIMs, live');
    await page.close();
  });

  it('when the partner deletes its test data, then the test order is gone for the test key within a minute, and its test keys still work', async () => {
    const { page } = portal;
    await visit(portal, '#/test', 'Test tools');
    await page.getByRole('button', { name: 'Delete all test data' }).click();
    expect(await confirm(page, 'Delete test data')).toContain('Live data is not touched');
    await notice(page, 'Deleting your test data');
    await until(
      async () => ((await asKey(partner.testKey, `/partner/orders/${order.id}`)).status === 404 ? true : undefined),
      'the test order to be deleted',
      60_000,
      500,
    );
    expectProblem(await asKey(partner.testKey, `/partner/orders/${order.id}`), 404, 'ORDER_NOT_FOUND');
    const wallet = await asKey(partner.testKey, '/partner/wallet');
    expect(wallet.status, wallet.text).toBe(200);
    expect(wallet.body).toMatchObject({ balance: 0, livemode: false });
  });
});
