// Protects how the two web apps hold credentials: the portal's JWT in the tab's sessionStorage only (no cookie), signed out with a reason when it expires or the API refuses it, and a wrong admin token never kept.
import { SignJWT } from 'jose';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alert, consoleSignIn, expectHealthy, notice, portalLogIn, storedSession } from './support/apps.js';
import { ensureWebBuilt, inPage, launchBrowser, openPage, type Browser } from './support/browser.js';
import { onboardPartner, platform, type Onboarded } from './support/client.js';

let browser: Browser;
let partner: Onboarded;

beforeAll(async () => {
  ensureWebBuilt();
  [browser, partner] = await Promise.all([launchBrowser(), onboardPartner()]);
});

afterAll(async () => {
  await browser?.close();
});

/** A portal token for the partner, signed with the platform's key, that expired a minute ago. */
function expiredToken(partnerId: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(partnerId)
    .setIssuer('esim-platform')
    .setAudience('partner-portal')
    .setIssuedAt(now - 3_700)
    .setExpirationTime(now - 60)
    .sign(new Uint8Array(Buffer.from(platform.jwtSecret, 'base64')));
}

const storageKey = 'esim.portal.session';
const keep = (page: Page, session: { token: string; expiresAt: number }) => inPage(page, `sessionStorage.setItem(${JSON.stringify(storageKey)}, ${JSON.stringify(JSON.stringify(session))})`);

describe('the portal session', () => {
  it('when a partner logs in, then the token is kept in sessionStorage, no cookie is set, and logging out forgets it', async () => {
    const watched = await openPage(browser, `${platform.publicUrl}/portal/`);
    await portalLogIn(watched.page, partner.email, partner.password);
    const stored = (await storedSession(watched.page, storageKey))!;
    expect(stored.token.split('.')).toHaveLength(3);
    expect(stored.expiresAt).toBeGreaterThan(Date.now() + 3_500_000);
    expect(await browser.context.cookies()).toEqual([]);
    expect(await inPage(watched.page, 'document.cookie')).toBe('');
    await watched.page.getByRole('button', { name: 'Log out' }).click();
    await notice(watched.page, 'You are logged out.');
    expect(await storedSession(watched.page, storageKey)).toBeNull();
    await expectHealthy(watched, 'the login page after logging out');
    await watched.page.close();
  });

  it('when the kept token is past its expiry, then the portal opens on the login page saying the session expired', async () => {
    const watched = await openPage(browser, `${platform.publicUrl}/portal/`);
    const token = await expiredToken(partner.id);
    await keep(watched.page, { token, expiresAt: Date.now() - 60_000 });
    await watched.page.reload();
    await notice(watched.page, 'Your session expired. Please log in again.');
    expect(await storedSession(watched.page, storageKey)).toBeNull();
    await watched.page.close();
  });

  it('when the API answers 401 to the kept token (expired by the server’s clock), then the portal logs out with the API’s reason', async () => {
    const watched = await openPage(browser, `${platform.publicUrl}/portal/`);
    const token = await expiredToken(partner.id);
    // The tab believes the token is still good for an hour; the server knows better.
    await keep(watched.page, { token, expiresAt: Date.now() + 3_600_000 });
    await watched.page.reload();
    await notice(watched.page, 'You were signed out: The portal token is malformed, expired or badly signed.');
    await watched.page.getByRole('button', { name: 'Log in' }).waitFor();
    expect(await storedSession(watched.page, storageKey)).toBeNull();
    await watched.page.close();
  });

  it('when the password is wrong, then the login form shows the API’s detail and keeps nothing', async () => {
    const watched = await openPage(browser, `${platform.publicUrl}/portal/`);
    await watched.page.getByLabel('E-mail').fill(partner.email);
    await watched.page.getByLabel('Password').fill('not-the-password');
    await watched.page.getByRole('button', { name: 'Log in' }).click();
    await alert(watched.page, /./);
    expect(await storedSession(watched.page, storageKey)).toBeNull();
    await expectHealthy(watched, 'the login page with an error');
    await watched.page.close();
  });
});

describe('the console session', () => {
  it('when the admin token is wrong, then the console says so and keeps nothing; with the right one it opens', async () => {
    const watched = await openPage(browser, `${platform.adminUrl}/console/`);
    await consoleSignIn(watched.page, 'adm_not-the-token-at-all-000000');
    await alert(watched.page, 'The token is not a valid operator or admin token.');
    expect(await inPage(watched.page, 'sessionStorage.length')).toBe(0);
    await expectHealthy(watched, 'the console sign-in with an error');
    await consoleSignIn(watched.page, platform.adminToken);
    await watched.page.getByRole('heading', { name: 'Pending applications' }).waitFor();
    expect(await browser.context.cookies()).toEqual([]);
    await watched.page.getByRole('button', { name: 'Sign out' }).click();
    await notice(watched.page, 'You are signed out.');
    expect(await inPage(watched.page, 'sessionStorage.length')).toBe(0);
    await watched.page.close();
  });
});
