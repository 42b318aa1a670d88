// Protects the two web apps as people use them, in a real Chromium against the real platform: a partner applies and waits, an operator approves, funds, manages plans, revokes and redelivers, and the partner sees each effect in its portal, with every page free of serious accessibility faults.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alert, confirm, consoleSignIn, decodeQr, expectHealthy, notice, operatorName, overflowing, portalLogIn, shows, visit } from './support/apps.js';
import { ensureWebBuilt, inPage, launchBrowser, openPage, screenshot, type Browser, type WatchedPage } from './support/browser.js';
import { admin, api, apiKeyPattern, asKey, platform, uniqueEmail, until, verifyEmailOf, waitForMail, withKey } from './support/client.js';
import { finalOrder, orderBody } from './support/money.js';

let browser: Browser;
let portal: WatchedPage;
let operator: WatchedPage;
let receiver: Server;
let receiverFails = true;

/** The partner of the journey, filled in as it goes. */
const partner = { company: `UI Travel ${randomBytes(3).toString('hex')}`, email: uniqueEmail('ui'), password: 'a-long-portal-password', id: '', apiKey: '', prefix: '' };
const plan = { name: `E2E Iceland 3 GB ${randomBytes(3).toString('hex')}`, sku: `E2E-UI-${randomBytes(3).toString('hex')}`, id: '' };

beforeAll(async () => {
  ensureWebBuilt();
  receiver = createServer((request, response) => {
    request.resume();
    response.writeHead(receiverFails ? 500 : 204).end();
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  browser = await launchBrowser();
  portal = await openPage(browser, `${platform.publicUrl}/portal/`);
  operator = await openPage(browser, `${platform.adminUrl}/console/`);
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

describe('a partner and an operator, through the portal and the console', () => {
  it('when a partner applies in the portal and logs in, then its pending account shows its application status and webhook settings only', async () => {
    const { page } = portal;
    await page.bringToFront();
    await page.getByRole('link', { name: 'Apply for API access' }).click();
    await expectHealthy(portal, 'the application form');
    await page.getByLabel('Your name').fill('Ursula Iversen');
    await page.getByLabel('Company').fill(partner.company);
    await page.getByLabel('E-mail').fill(partner.email);
    await page.getByLabel('Password').fill(partner.password);
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('heading', { name: 'Application received' }).waitFor();
    await page.getByRole('link', { name: 'Log in' }).first().click();
    await expectHealthy(portal, 'the login page');
    await portalLogIn(page, partner.email, partner.password);

    await shows(page.locator('main'), 'Your application is being reviewed');
    expect(await page.getByRole('heading', { name: 'Webhook settings' }).isVisible()).toBe(true);
    const sections = await page.getByRole('navigation', { name: 'Sections' }).getByRole('link').allInnerTexts();
    expect(sections).toEqual(['Account']);
    expect(await page.getByRole('heading', { name: 'API keys' }).count()).toBe(0);
    await expectHealthy(portal, 'the pending portal');
    await screenshot(page, 'portal-pending');
  });

  it('when the operator approves it in the console at a tier, then the portal opens in full with the key’s prefix, and the audit log names the operator', async () => {
    // The applicant proves the address first (§4): only then can the operator approve.
    await verifyEmailOf(partner.email);
    const { page } = operator;
    await consoleSignIn(page, platform.adminToken);
    await page.getByRole('heading', { name: 'Pending applications' }).waitFor();
    const card = page.locator('section', { has: page.getByRole('heading', { name: partner.company }) });
    await card.getByLabel('Tier').selectOption('premium');
    await expectHealthy(operator, 'the applications page');
    await screenshot(page, 'console-applications');
    await card.getByRole('button', { name: 'Approve' }).click();
    expect(await confirm(page, 'Approve')).toContain('premium');
    await notice(page, `Approved ${partner.company} at the premium tier`);

    const [mail] = await waitForMail(partner.email, 'Your partner account is approved');
    partner.apiKey = apiKeyPattern.exec(mail!.text)![1]!;
    partner.prefix = partner.apiKey.split('_')[2]!;
    partner.id = (await admin(`/partners?status=approved&limit=100`)).body.data.find((p: { email: string }) => p.email === partner.email).id;

    await portal.page.reload();
    await shows(portal.page.getByRole('table', { name: 'API keys' }), `sk_live_${partner.prefix}_`);
    const sections = await portal.page.getByRole('navigation', { name: 'Sections' }).getByRole('link').allInnerTexts();
    expect(sections).toEqual(['Account', 'Catalog', 'Wallet', 'Orders', 'eSIMs', 'Webhooks']);
    await shows(portal.page.locator('dl.facts'), 'Premium');
    await expectHealthy(portal, 'the approved portal');
    await screenshot(portal.page, 'portal-approved');

    await visit(operator, `#/audit`, 'Audit log');
    const row = page.getByRole('row').filter({ hasText: partner.id }).filter({ hasText: 'partner.approved' });
    expect(await shows(row, operatorName)).toContain('tier: premium');
    await expectHealthy(operator, 'the audit log');
  });

  it('when the operator tops up the wallet and creates a plan, then the portal shows the balance in major units and the plan at the partner’s tier price', async () => {
    const { page } = operator;
    await visit(operator, `#/partners/${partner.id}`, partner.company);
    await page.getByLabel('Amount (USD)', { exact: true }).fill('25.00');
    await page.getByLabel('Bank transfer reference').fill(`WIRE-UI-${partner.prefix}`);
    await page.getByRole('button', { name: 'Top up', exact: true }).click();
    expect(await confirm(page, 'Credit wallet')).toContain('$25.00');
    await notice(page, 'Credited $25.00; the balance is now $25.00.');
    expect((await admin(`/partners/${partner.id}/wallet`)).body.balance).toBe(2_500);
    await expectHealthy(operator, 'the partner page');
    await screenshot(page, 'console-partner');

    await visit(operator, '#/plans/new', 'New plan');
    const fields: Array<[string, string]> = [
      ['Name', plan.name], ['Countries', 'is'], ['Data (MB)', '3072'], ['Validity (days)', '15'], ['Floor price (standard tier)', '4.00'],
      ['Retail price', '9.00'], ['Supplier SKU', plan.sku], ['Supplier cost', '2.00'],
    ];
    for (const [label, value] of fields) await page.getByLabel(label, { exact: true }).fill(value);
    await page.getByRole('button', { name: 'Create plan' }).click();
    await confirm(page, 'Create plan');
    await notice(page, `Created ${plan.name}.`);
    plan.id = /#\/plans\/(plan_\w+)/.exec(page.url())![1]!;
    expect((await admin(`/plans/${plan.id}`)).body).toMatchObject({ countries: ['IS'], floorPrice: 400, retailPrice: 900, supplierCost: 200, active: true });
    await expectHealthy(operator, 'the plan editor');

    await visit(portal, '#/wallet', 'Wallet');
    expect(await shows(portal.page.getByTestId('wallet-balance'), '$')).toBe('$25.00');
    await shows(portal.page.getByRole('table', { name: 'Ledger entries' }).getByRole('row'), `Bank transfer WIRE-UI-${partner.prefix}`);
    await expectHealthy(portal, 'the wallet');
    await screenshot(portal.page, 'portal-wallet');

    await visit(portal, '#/catalog', 'Catalog');
    await portal.page.getByLabel('Country').selectOption('IS');
    // Premium pays the floor price + 10 %: 4.00 → 4.40.
    const row = portal.page.getByRole('row').filter({ hasText: plan.name });
    expect(await shows(row, '$4.40')).toContain('Iceland');
    await expectHealthy(portal, 'the catalog');
    await screenshot(portal.page, 'portal-catalog');
  });

  it('when an order is placed through the API, then its page shows a QR image that decodes to the activation code, on a phone too', async () => {
    const placed = await asKey(partner.apiKey, '/partner/orders', { body: orderBody(plan.id) });
    expect(placed.status, placed.text).toBe(201);
    const order = await finalOrder(partner.apiKey, placed.body.id);
    expect(order.status).toBe('provisioned');

    const { page } = portal;
    await visit(portal, '#/orders', 'Orders');
    await page.getByRole('link', { name: order.id }).click();
    await page.getByRole('heading', { level: 1, name: `Order ${order.id}` }).waitFor();
    const code = await shows(page.getByTestId('activation-code'), 'LPA:1$');
    expect(code).toBe(order.esim.activationCode);
    expect(await decodeQr(page.locator('img.qr'))).toBe(order.esim.activationCode);
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: platform.publicUrl });
    await page.getByRole('button', { name: 'Copy activation code' }).click();
    await shows(page.getByRole('status'), 'Copied.');
    expect(await inPage(page, 'navigator.clipboard.readText()')).toBe(order.esim.activationCode);
    await expectHealthy(portal, 'the order page');
    await screenshot(page, 'portal-order');

    await page.setViewportSize({ width: 390, height: 844 });
    expect(await overflowing(page), 'the order page fits a phone').toEqual([]);
    expect(await decodeQr(page.locator('img.qr'))).toBe(order.esim.activationCode);
    await screenshot(page, 'portal-order-phone');
    await page.setViewportSize({ width: 1100, height: 760 });
  });

  it('when a test event fails at the partner’s endpoint and the operator retries it after the fix, then it is delivered', async () => {
    const { page } = portal;
    await visit(portal, '#/account', 'Your account');
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    await page.getByLabel('Webhook URL').fill(url);
    await page.getByRole('button', { name: 'Save webhook URL' }).click();
    await notice(page, `Events now go to ${url}.`);

    await visit(portal, '#/webhooks', 'Webhook deliveries');
    await page.getByRole('button', { name: 'Send test event' }).click();
    const eventId = /evt_\w+/.exec(await notice(page, 'Test event'))![0];
    const delivery = await until(async () => {
      const found = (await admin(`/webhook-deliveries?partnerId=${partner.id}&status=failed`)).body.data.find((d: { eventId: string }) => d.eventId === eventId);
      return found as { id: string } | undefined;
    }, `delivery of ${eventId} to fail`, 20_000);
    await page.getByRole('button', { name: 'Refresh' }).click();
    await shows(page.getByRole('row').filter({ hasText: eventId }), 'Failed');
    await expectHealthy(portal, 'the webhook deliveries');
    await screenshot(page, 'portal-webhooks');

    receiverFails = false;
    await visit(operator, `#/deliveries?partnerId=${partner.id}`, 'Webhook deliveries');
    await operator.page.getByRole('button', { name: `Retry delivery ${delivery.id}` }).click();
    await confirm(operator.page, 'Retry now');
    await notice(operator.page, `Delivery ${delivery.id} is pending`);
    await until(async () => ((await admin(`/webhook-deliveries?partnerId=${partner.id}&status=succeeded`)).body.data.some((d: { id: string }) => d.id === delivery.id) ? true : undefined), 'the retried delivery to succeed', 20_000);
    await operator.page.getByRole('button', { name: 'Refresh' }).click();
    await shows(operator.page.getByRole('row').filter({ hasText: eventId }), 'Succeeded');
    await expectHealthy(operator, 'the deliveries page');
    await screenshot(operator.page, 'console-deliveries');
  });

  it('when the operator revokes the key and deactivates the plan, then the API refuses the key and the portal shows both', async () => {
    const { page } = operator;
    await visit(operator, `#/partners/${partner.id}`, partner.company);
    await page.getByRole('button', { name: `Revoke key ${partner.prefix}` }).click();
    expect(await confirm(page, 'Revoke key')).toContain(`sk_live_${partner.prefix}_`);
    await notice(page, `Key sk_live_${partner.prefix}_… revoked.`);
    await until(async () => ((await api('/partner/wallet', withKey(partner.apiKey))).status === 401 ? true : undefined), 'the revoked key to be refused', 5_000);

    await visit(operator, `#/plans/${plan.id}`, plan.name);
    await page.getByRole('button', { name: 'Deactivate' }).click();
    await confirm(page, 'Deactivate');
    await notice(page, `${plan.name} is now inactive.`);

    await visit(portal, '#/account', 'Your account');
    await portal.page.reload();
    await shows(portal.page.getByRole('row').filter({ hasText: `sk_live_${partner.prefix}_` }), 'Revoked');
    await visit(portal, '#/catalog?country=IS', 'Catalog');
    await portal.page.getByRole('table', { name: 'Plans' }).or(portal.page.getByText('No active plan covers this country.')).first().waitFor();
    expect(await portal.page.getByRole('row').filter({ hasText: plan.name }).count()).toBe(0);
  });

  it('when an operator action fails, then the console shows the API’s problem detail and changes nothing', async () => {
    const expected = await admin(`/partners/${partner.id}/wallet/adjustments`, { body: { amount: -100_000, reason: 'Probe' } });
    expect(expected.status).toBe(402);
    const { page } = operator;
    await visit(operator, `#/partners/${partner.id}`, partner.company);
    await page.getByLabel('Amount (USD, negative to debit)').fill('-1,000.00');
    await page.getByLabel('Reason').fill('Chargeback');
    await page.getByRole('button', { name: 'Adjust', exact: true }).click();
    expect(await confirm(page, 'Adjust balance')).toContain('Debit $1,000.00');
    expect(await alert(page, expected.body.detail)).toBe(expected.body.detail);
    expect((await admin(`/partners/${partner.id}/wallet`)).body.balance).toBe(2_060);
    await expectHealthy(operator, 'the partner page after a refused adjustment');
  });

  it('when both apps are used on a phone or a small laptop, then no page needs sideways scrolling', async () => {
    const pages: Array<[WatchedPage, string, string | RegExp]> = [
      [portal, '#/account', 'Your account'],
      [portal, '#/catalog?country=FR', 'Catalog'],
      [portal, '#/wallet', 'Wallet'],
      [portal, '#/orders', 'Orders'],
      [portal, '#/esims', 'eSIMs'],
      [portal, '#/webhooks', 'Webhook deliveries'],
      [operator, '#/applications', 'Pending applications'],
      [operator, '#/partners', 'Partners'],
      [operator, `#/partners/${partner.id}`, partner.company],
      [operator, '#/plans', 'Plans'],
      [operator, `#/plans/${plan.id}`, plan.name],
      [operator, '#/orders', 'Orders'],
      [operator, '#/deliveries', 'Webhook deliveries'],
      [operator, '#/audit', 'Audit log'],
    ];
    for (const width of [1024, 390]) {
      for (const [watched, hash, heading] of pages) {
        await watched.page.setViewportSize({ width, height: 844 });
        await visit(watched, hash, heading);
        const loading = watched.page.locator('main p.muted[role="status"]');
        while ((await loading.count()) > 0) await loading.first().waitFor({ state: 'detached' });
        expect(await overflowing(watched.page), `${hash} ${width} px wide`).toEqual([]);
      }
    }
    await visit(portal, '#/wallet', 'Wallet');
    expect(await shows(portal.page.getByTestId('wallet-balance'), '$')).toBe('$20.60');
    await screenshot(portal.page, 'portal-wallet-phone');
    await visit(operator, `#/partners/${partner.id}`, partner.company);
    await screenshot(operator.page, 'console-partner-phone');
  });
});
