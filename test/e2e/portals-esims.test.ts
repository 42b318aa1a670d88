// Protects §13 in the two web apps, in a real Chromium against the real platform and the supplier simulator: a partner sees its eSIM's status, a usage bar with exact values, its bundles, the plans that can top it up with a call that really tops it up, and which cancellation rules pass, with a cancel call that really cancels; the console shows the same eSIM read-only; every page free of serious accessibility faults.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleSignIn, expectHealthy, overflowing, portalLogIn, shows, visit } from './support/apps.js';
import { ensureWebBuilt, launchBrowser, openPage, screenshot, type Browser, type WatchedPage } from './support/browser.js';
import { admin, asKey, platform, type Onboarded } from './support/client.js';
import { buy, esimWhen, install, planFor, settled, use } from './support/esims.js';
import { fundedPartner } from './support/money.js';

let browser: Browser;
let portal: WatchedPage;
let operator: WatchedPage;
let partner: Onboarded;
let plans: { france: string; franceTopUp: string; germany: string };
/** Installed and used 300 MB of its 1024 MB bundle through the simulator. */
let used: any;
/** Provisioned, never installed nor used: cancellable. */
let fresh: any;

const planName = async (id: string) => (await admin(`/plans/${id}`)).body.name as string;

beforeAll(async () => {
  ensureWebBuilt();
  [browser, partner] = await Promise.all([launchBrowser(), fundedPartner(100_000)]);
  plans = { france: await planFor(['FR'], 1024, 500), franceTopUp: await planFor(['FR'], 512, 300, 7), germany: await planFor(['DE'], 2048, 400) };
  [used, fresh] = await Promise.all([buy(partner.apiKey, plans.france), buy(partner.apiKey, plans.france)]);
  expect([used.status, fresh.status]).toEqual(['provisioned', 'provisioned']);
  expect((await install(used.iccid)).status).toBe(200);
  expect((await use(used.iccid, 300)).status).toBe(200);
  await esimWhen(partner.apiKey, used.iccid, (e) => e.status === 'installed' && e.usage.dataUsedMb === 300, 'installed with 300 MB used');
  portal = await openPage(browser, `${platform.publicUrl}/portal/`);
  await portalLogIn(portal.page, partner.email, partner.password);
  operator = await openPage(browser, `${platform.adminUrl}/console/`);
  await consoleSignIn(operator.page, platform.adminToken);
  await operator.page.getByRole('heading', { name: 'Pending applications' }).waitFor();
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

/** The usage bar's values as assistive technology reads them. */
async function usageBar(watched: WatchedPage) {
  const bar = watched.page.getByRole('progressbar', { name: 'Data used' });
  await bar.waitFor();
  const [min, max, now, text] = await Promise.all(['aria-valuemin', 'aria-valuemax', 'aria-valuenow', 'aria-valuetext'].map((name) => bar.getAttribute(name)));
  return { min: Number(min), max: Number(max), now: Number(now), text };
}

const bundleRows = (watched: WatchedPage) => watched.page.getByRole('table', { name: 'Bundles' }).locator('tbody tr');

describe('an eSIM after the sale, in the portal and the console', () => {
  it('when the traveller installed the eSIM and used 300 MB, then its order page shows it installed, the usage bar’s values, its bundle and an iPhone install link', async () => {
    const { page } = portal;
    await visit(portal, `#/orders/${used.id}`, `Order ${used.id}`);
    const state = page.locator('section', { has: page.getByRole('heading', { name: /Status and use/ }) });
    await shows(state.getByRole('heading', { level: 2 }), 'Installed');
    await shows(state, used.iccid);
    expect(await usageBar(portal)).toEqual({ min: 0, max: 1024, now: 300, text: '300 MB used of 1 GB, 724 MB remaining' });
    await shows(page.getByTestId('usage-text'), '300 MB used of 1 GB, 724 MB remaining (29 %)');
    expect(await bundleRows(portal).count()).toBe(1);
    const bundle = await shows(bundleRows(portal).first(), 'Active');
    expect(bundle).toContain(await planName(plans.france));
    expect(bundle).toContain('300 MB (29 %)');
    expect(await page.getByRole('link', { name: 'Install on iPhone' }).getAttribute('href')).toBe(used.esim.appleInstallUrl);
    await expectHealthy(portal, 'the order page of a used eSIM');
    await screenshot(page, 'portal-esim-used');
  });

  it('when the partner opens "Top up", then only the plans covering the eSIM’s country are listed, and the call it shows adds a queued bundle to the same eSIM', async () => {
    const { page } = portal;
    await visit(portal, `#/orders/${used.id}`, `Order ${used.id}`);
    const table = page.getByRole('table', { name: 'Top-up plans' });
    const topUpName = await planName(plans.franceTopUp);
    await shows(table, topUpName);
    const listed = await table.locator('tbody tr td:first-child').allInnerTexts();
    expect(listed).toEqual(expect.arrayContaining([topUpName, await planName(plans.france)]));
    expect(listed.some((name) => name.startsWith('DE '))).toBe(false);

    await page.getByRole('button', { name: `Show call for ${topUpName}` }).click();
    expect(await page.getByRole('button', { name: `Show call for ${topUpName}` }).getAttribute('aria-pressed')).toBe('true');
    const call = await shows(page.getByTestId('topup-call'), plans.franceTopUp);
    expect(call).toContain(`curl -X POST '${platform.publicUrl}/api/v1/partner/orders'`);
    expect(call).toContain('Authorization: Bearer $ESIM_API_KEY');
    const body = JSON.parse(/ -d '([^']*)'$/.exec(call)![1]!);
    expect(body).toMatchObject({ planId: plans.franceTopUp, iccid: used.iccid, email: used.email, phoneNumber: used.phoneNumber });
    await expectHealthy(portal, 'the top-up plans');
    await screenshot(page, 'portal-esim-topup');

    const placed = await asKey(partner.apiKey, '/partner/orders', { body });
    expect(placed.status, placed.text).toBe(201);
    expect(placed.body).toMatchObject({ kind: 'topup', iccid: used.iccid });
    expect((await settled(partner.apiKey, placed.body.id)).status).toBe('provisioned');
    await page.getByRole('button', { name: 'Refresh use' }).click();
    await shows(bundleRows(portal).nth(1), 'Queued');
    expect(await usageBar(portal)).toMatchObject({ max: 1536, now: 300 });
  });

  it('when the eSIM is installed, used and topped up, then the cancel check shows those rules failing and no cancel call', async () => {
    const { page } = portal;
    await visit(portal, `#/orders/${used.id}`, `Order ${used.id}`);
    const rules = page.getByRole('list', { name: 'Cancellation rules' });
    await shows(rules.getByRole('listitem').filter({ hasText: 'The order is provisioned' }), 'Passes');
    await shows(rules.getByRole('listitem').filter({ hasText: 'Its bundle has no use' }), 'Fails');
    await shows(rules.getByRole('listitem').filter({ hasText: 'The eSIM is not installed' }), 'Fails');
    await shows(rules.getByRole('listitem').filter({ hasText: 'no top-up' }), 'Fails');
    await shows(rules.getByRole('listitem').filter({ hasText: 'cancellation window' }), 'Checked by the API');
    expect(await shows(page.getByTestId('cancel-verdict'), 'cannot be cancelled')).toBe(
      'This order cannot be cancelled: its bundle was used (300 MB); the eSIM is installed on a device; the eSIM has a top-up (cancel it first).',
    );
    expect(await page.getByTestId('cancel-call').count()).toBe(0);
    // What the API says agrees with what the portal showed.
    expect((await asKey(partner.apiKey, `/partner/orders/${used.id}/cancel`, { method: 'POST' })).status).toBe(409);
    await expectHealthy(portal, 'the cancel check of a used eSIM');

    await page.setViewportSize({ width: 390, height: 844 });
    expect(await overflowing(page), 'the order page fits a phone').toEqual([]);
    await screenshot(page, 'portal-esim-phone');
    await page.setViewportSize({ width: 1100, height: 760 });
  });

  it('when an order was never used, then every rule passes and the cancel call it shows cancels it; the page then shows it cancelled and no longer toppable', async () => {
    const { page } = portal;
    await visit(portal, `#/orders/${fresh.id}`, `Order ${fresh.id}`);
    await shows(page.locator('section', { has: page.getByRole('heading', { name: /Status and use/ }) }).getByRole('heading', { level: 2 }), 'Released');
    expect(await usageBar(portal)).toEqual({ min: 0, max: 1024, now: 0, text: '0 MB used of 1 GB, 1 GB remaining' });
    await shows(page.getByTestId('cancel-verdict'), 'This order can be cancelled.');
    expect(await page.getByRole('list', { name: 'Cancellation rules' }).getByText('Fails').count()).toBe(0);
    const call = await shows(page.getByTestId('cancel-call'), '/cancel');
    expect(call).toBe(`curl -X POST '${platform.publicUrl}/api/v1/partner/orders/${fresh.id}/cancel' \\\n  -H "Authorization: Bearer $ESIM_API_KEY"`);
    await expectHealthy(portal, 'the cancel check of an unused eSIM');
    await screenshot(page, 'portal-esim-cancellable');

    const path = /\/api\/v1(\/partner\/orders\/\w+\/cancel)/.exec(call)![1]!;
    const cancelled = await asKey(partner.apiKey, path, { method: 'POST' });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    await page.reload();
    await shows(page.getByRole('heading', { name: 'Cancelled' }), 'Cancelled');
    await shows(page.getByTestId('cancel-verdict'), 'This order was cancelled');
    await shows(page.getByTestId('topup-state'), 'cannot be topped up');
    await shows(bundleRows(portal).first(), 'Cancelled');
    await expectHealthy(portal, 'a cancelled order');
    await screenshot(page, 'portal-esim-cancelled');
  });

  it('when the partner opens eSIMs and filters installed, then only the used eSIM is listed and its row opens its first order', async () => {
    const { page } = portal;
    await visit(portal, '#/esims', 'eSIMs');
    const sections = await page.getByRole('navigation', { name: 'Sections' }).getByRole('link').allInnerTexts();
    expect(sections).toContain('eSIMs');
    const table = page.getByRole('table', { name: 'eSIMs' });
    await shows(table.getByRole('row').filter({ hasText: fresh.iccid }), 'Cancelled');
    expect(await shows(table.getByRole('row').filter({ hasText: used.iccid }), 'Installed')).toContain('300 MB of 1.5 GB (20 %)');
    await page.getByLabel('Status').selectOption('installed');
    await page.waitForURL(/status=installed/);
    await table.getByRole('row').filter({ hasText: fresh.iccid }).waitFor({ state: 'detached' });
    expect(await table.locator('tbody tr').count()).toBe(1);
    await expectHealthy(portal, 'the eSIMs list');
    await screenshot(page, 'portal-esims');
    await page.getByRole('link', { name: used.iccid }).click();
    await page.getByRole('heading', { level: 1, name: `Order ${used.id}` }).waitFor();
  });

  it('when the operator opens the order in the console, then the same status, usage and bundles show read-only', async () => {
    const { page } = operator;
    await visit(operator, `#/orders/${used.id}`, `Order ${used.id}`);
    await shows(page.locator('section', { has: page.getByRole('heading', { name: /Status and use/ }) }).getByRole('heading', { level: 2 }), 'Installed');
    expect(await usageBar(operator)).toEqual({ min: 0, max: 1536, now: 300, text: '300 MB used of 1.5 GB, 1.2 GB remaining' });
    expect(await bundleRows(operator).allInnerTexts()).toEqual([expect.stringContaining('Active'), expect.stringContaining('Queued')]);
    expect(await page.getByRole('table', { name: 'Top-up plans' }).count()).toBe(0);
    expect(await page.getByRole('list', { name: 'Cancellation rules' }).count()).toBe(0);
    await expectHealthy(operator, 'the console order page with its eSIM');
    await screenshot(page, 'console-esim');
  });
});
