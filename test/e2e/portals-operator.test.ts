// Protects the operator console's account actions in a real Chromium: reject with a reason, issue a key with chosen scopes, rotate the webhook secret, change the tier, suspend and reinstate, each confirmed first and each visible where the partner looks.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confirm, consoleSignIn, expectHealthy, notice, operatorName, portalLogIn, shows, visit } from './support/apps.js';
import { ensureWebBuilt, launchBrowser, openPage, type Browser, type WatchedPage } from './support/browser.js';
import { admin, onboardPartner, platform, registerPartner, waitForMail, type Onboarded } from './support/client.js';

let browser: Browser;
let operator: WatchedPage;
let portal: WatchedPage;
let partner: Onboarded;
/** The company `onboardPartner` registers, the partner page's heading. */
const company = 'Test Travel Ltd';

beforeAll(async () => {
  ensureWebBuilt();
  [browser, partner] = await Promise.all([launchBrowser(), onboardPartner('standard')]);
  operator = await openPage(browser, `${platform.adminUrl}/console/`);
  await consoleSignIn(operator.page, platform.adminToken);
  await operator.page.getByRole('heading', { name: 'Pending applications' }).waitFor();
  portal = await openPage(browser, `${platform.publicUrl}/portal/`);
  await portalLogIn(portal.page, partner.email, partner.password);
});

afterAll(async () => {
  await browser?.close();
});

describe('the operator console’s partner actions', () => {
  it('when the operator rejects an application with a reason, then it is rejected, the reason is e-mailed, and the audit log names the operator', async () => {
    const { application, answer } = await registerPartner({ company: `Rejected Ltd ${randomBytes(3).toString('hex')}` });
    expect(answer.status).toBe(201);
    const { page } = operator;
    await visit(operator, '#/applications', 'Pending applications');
    const card = page.locator('section', { has: page.getByRole('heading', { name: application.company as string }) });
    await card.getByLabel('Reason for rejecting').fill('We only work with licensed travel agencies.');
    await card.getByRole('button', { name: 'Reject' }).click();
    expect(await confirm(page, 'Reject')).toContain(application.email);
    await notice(page, `Rejected ${application.company}.`);
    expect((await admin(`/partners/${answer.body.id}`)).body).toMatchObject({ status: 'rejected', rejectionReason: 'We only work with licensed travel agencies.' });
    const [mail] = await waitForMail(application.email, 'Your partner application was declined');
    expect(mail!.text).toContain('We only work with licensed travel agencies.');
    const audit = (await admin('/audit?limit=50')).body.data.find((e: { target: string }) => e.target === answer.body.id);
    // Signed in with the break-glass ADMIN_TOKEN: the actor is the credential (§10), never the name typed in.
    expect(audit).toMatchObject({ operator: 'admin-token' });
  });

  it('when the operator issues a key with two scopes and rotates the webhook secret, then both are e-mailed and only metadata is shown', async () => {
    const { page } = operator;
    await visit(operator, `#/partners/${partner.id}`, company);
    for (const scope of ['orders:write', 'orders:read']) await page.getByLabel(scope).uncheck();
    await page.getByRole('button', { name: 'Issue key' }).click();
    expect(await confirm(page, 'Issue key')).toContain('catalog:read, wallet:read');
    const issued = await notice(page, /Key sk_live_\w+_… issued/);
    const prefix = /sk_live_(\w+)_/.exec(issued)![1]!;
    const keys = (await admin(`/partners/${partner.id}/keys`)).body.data as Array<{ prefix: string; scopes: string[] }>;
    expect(keys.find((k) => k.prefix === prefix)?.scopes).toEqual(['catalog:read', 'wallet:read']);
    await shows(page.getByRole('table', { name: 'API keys' }).getByRole('row').filter({ hasText: prefix }), 'catalog:read, wallet:read');
    const [mail] = await waitForMail(partner.email, 'A new API key was issued');
    const key = /sk_live_\w+_[A-Za-z0-9]{32,}/.exec(mail!.text)![0];
    expect(key).toContain(prefix);
    expect(await page.content()).not.toContain(key);

    await page.getByRole('button', { name: 'Rotate webhook secret' }).click();
    await confirm(page, 'Rotate secret');
    await notice(page, 'Webhook secret rotated at');
    const [rotated] = await waitForMail(partner.email, 'Your webhook signing secret was rotated');
    expect(await page.content()).not.toContain(/whsec_\S+/.exec(rotated!.text)![0]);
    await expectHealthy(operator, 'the partner page after issuing and rotating');
  });

  it('when the operator changes the tier and suspends, then the portal shows the new tier and falls back to the limited view; reinstating opens it again', async () => {
    const { page } = operator;
    await visit(operator, `#/partners/${partner.id}`, company);
    await page.getByLabel('Tier', { exact: true }).selectOption('enterprise');
    await page.getByRole('button', { name: 'Change tier' }).click();
    expect(await confirm(page, 'Change tier')).toContain('from the standard to the enterprise tier');
    await notice(page, 'is now on the enterprise tier.');

    await page.getByRole('button', { name: 'Suspend' }).click();
    await confirm(page, 'Suspend');
    await notice(page, 'is now suspended.');
    await portal.page.reload();
    await shows(portal.page.locator('main'), 'Your account is suspended');
    expect(await portal.page.getByRole('navigation', { name: 'Sections' }).getByRole('link').allInnerTexts()).toEqual(['Account']);
    await shows(portal.page.locator('dl.facts'), 'Enterprise');
    await expectHealthy(portal, 'the suspended portal');

    await page.getByRole('button', { name: 'Reinstate' }).click();
    await confirm(page, 'Reinstate');
    await notice(page, 'is now approved.');
    await portal.page.reload();
    await portal.page.getByRole('link', { name: 'Catalog' }).waitFor();
    expect(await portal.page.getByRole('navigation', { name: 'Sections' }).getByRole('link').allInnerTexts()).toEqual(['Account', 'Catalog', 'Wallet', 'Orders', 'eSIMs', 'Webhooks']);
  });

  it('when the operator cancels a confirmation, then nothing is sent', async () => {
    const { page } = operator;
    await visit(operator, `#/partners/${partner.id}`, company);
    await page.getByRole('button', { name: 'Suspend' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    expect((await admin(`/partners/${partner.id}`)).body.status).toBe('approved');
  });
});
