// Protects the console's Operators page (§10) in a real Chromium: an admin creates an operator whose token is e-mailed once and never shown, changes its role and revokes it, each confirmed first and each holding at the API; a viewer sees the list but no control it could not use.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confirm, consoleSignIn, expectHealthy, notice, visit } from './support/apps.js';
import { ensureWebBuilt, inPage, launchBrowser, openPage, type Browser } from './support/browser.js';
import { admin, call, platform, waitForMail } from './support/client.js';

const operatorTokenPattern = /^Operator token: (op_[a-z0-9]{12}_[A-Za-z0-9]{32,})$/m;
let browser: Browser;

beforeAll(async () => {
  ensureWebBuilt();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

const operatorByEmail = async (email: string) => ((await admin('/operators?limit=100')).body.data as Array<{ id: string; email: string; role: string; revokedAt: string | null }>).find((o) => o.email === email);

describe('the console’s Operators page', () => {
  it('when an admin creates an operator, changes its role and revokes it, then each holds at the API and the token is only ever e-mailed', async () => {
    const watched = await openPage(browser, `${platform.adminUrl}/console/`);
    const { page } = watched;
    await consoleSignIn(page, platform.adminToken);
    await page.getByRole('heading', { name: 'Pending applications' }).waitFor();
    await visit(watched, '#/operators', 'Operators');

    const email = `console-op-${randomBytes(4).toString('hex')}@example.test`;
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Name').fill('Fiona Finance');
    await page.getByLabel('Role', { exact: true }).selectOption('finance');
    await page.getByRole('button', { name: 'Create operator' }).click();
    expect(await confirm(page, 'Create operator')).toContain(email);
    await notice(page, `Operator ${email} created as finance`);
    const created = await operatorByEmail(email);
    expect(created).toMatchObject({ role: 'finance', revokedAt: null });
    const [mail] = await waitForMail(email, 'Your operator account');
    const token = operatorTokenPattern.exec(mail!.text)![1]!;
    // The token exists in the e-mail alone: not in the page, not in what the console keeps.
    expect(await page.content()).not.toContain(token);
    expect(await inPage<string>(page, 'JSON.stringify({ ...sessionStorage }) + JSON.stringify({ ...localStorage })')).not.toContain(token);

    await page.getByLabel(`Role of ${email}`, { exact: true }).selectOption('support');
    await page.getByRole('button', { name: `Change role of ${email}` }).click();
    expect(await confirm(page, 'Change role')).toContain('from finance to support');
    await notice(page, `${email} is now support.`);
    expect((await operatorByEmail(email))?.role).toBe('support');

    await page.getByRole('button', { name: `Revoke ${email}` }).click();
    await confirm(page, 'Revoke operator');
    await notice(page, `${email} revoked.`);
    expect((await operatorByEmail(email))?.revokedAt).not.toBeNull();
    expect((await call(platform.adminUrl, '/admin/v1/operators/me', { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
    await expectHealthy(watched, 'the Operators page');
    await watched.page.close();
  });

  it('when a viewer signs in, then the list shows but no create form, role change or revoke is offered', async () => {
    const email = `console-viewer-${randomBytes(4).toString('hex')}@example.test`;
    expect((await admin('/operators', { body: { email, name: 'Vera Viewer', role: 'viewer' } })).status).toBe(201);
    const [mail] = await waitForMail(email, 'Your operator account');
    const token = operatorTokenPattern.exec(mail!.text)![1]!;
    const watched = await openPage(browser, `${platform.adminUrl}/console/`);
    const { page } = watched;
    await consoleSignIn(page, token);
    await page.getByRole('heading', { name: 'Pending applications' }).waitFor();
    await visit(watched, '#/operators', 'Operators');
    const row = page.getByRole('table', { name: 'Operators' }).getByRole('row').filter({ hasText: email });
    await row.waitFor();
    expect(await row.innerText()).toContain('viewer');
    expect(await page.getByRole('heading', { name: 'New operator' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^(Revoke|Change role of) / }).count()).toBe(0);
    expect(await page.getByRole('combobox').count()).toBe(0);
    await expectHealthy(watched, 'the Operators page as a viewer');
    await watched.page.close();
  });
});
