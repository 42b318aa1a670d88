/** What a person does in the two web apps, as steps the journeys share: log in, sign in, confirm, read a notice. */
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import { inPage, seriousViolations, type WatchedPage } from './browser.js';

export const operatorName = 'E2E Operator';

/** Waits until the locator's element shows `text` (a string is a substring), and answers its whole text. */
export async function shows(locator: Locator, text: string | RegExp): Promise<string> {
  const match = locator.filter({ hasText: text }).first();
  await match.waitFor({ state: 'visible' });
  return (await match.innerText()).trim();
}

/** The success notice of the last action (role=status), or the API's problem detail (role=alert). */
export const notice = (page: Page, text: string | RegExp) => shows(page.locator('.alert-ok[role="status"]'), text);
export const alert = (page: Page, text: string | RegExp) => shows(page.getByRole('alert'), text);

/** Answers the modal confirmation with its confirm button. */
export async function confirm(page: Page, button: string): Promise<string> {
  const dialog = page.getByRole('dialog');
  await dialog.waitFor({ state: 'visible' });
  const question = await dialog.locator('#confirm-message').innerText();
  await dialog.getByRole('button', { name: button, exact: true }).click();
  await dialog.waitFor({ state: 'hidden' });
  return question;
}

export async function portalLogIn(page: Page, email: string, password: string): Promise<void> {
  await page.bringToFront();
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Your account' }).waitFor();
}

export async function consoleSignIn(page: Page, adminToken: string, operator = operatorName): Promise<void> {
  await page.bringToFront();
  await page.getByLabel('Your name').fill(operator);
  await page.getByLabel('Operator token').fill(adminToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/**
 * Opens an app's page by its hash route (same document: the app follows the
 * hash), in the foreground tab: headless Chromium paints background tabs
 * rarely, and a click waits for two painted frames.
 */
export async function visit(watched: WatchedPage, hash: string, heading: string | RegExp): Promise<void> {
  await watched.page.bringToFront();
  const url = new URL(watched.page.url());
  url.hash = hash;
  await watched.page.goto(url.toString());
  await watched.page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

/** No script error, CSP violation or foreign request so far, and no serious or critical axe finding on the page as it is now. */
export async function expectHealthy(watched: WatchedPage, where: string): Promise<void> {
  expect(watched.problems, where).toEqual([]);
  expect(await seriousViolations(watched.page), `accessibility of ${where}`).toEqual([]);
}

/** The text a QR image encodes, read from what the browser actually painted. */
export async function decodeQr(image: Locator): Promise<string | undefined> {
  const loaded = await image.evaluate((element) => {
    const img = element as unknown as { complete: boolean; naturalWidth: number };
    return img.complete && img.naturalWidth > 0;
  });
  if (!loaded) return undefined;
  const png = PNG.sync.read(await image.screenshot());
  return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data;
}

/**
 * The elements whose box or content reaches past the right edge of the
 * screen, outside any scrolling container: none when the page needs no
 * sideways scrolling on a phone.
 */
export function overflowing(page: Page): Promise<string[]> {
  return inPage<string[]>(
    page,
    `document.documentElement.scrollWidth <= window.innerWidth ? [] : [...document.querySelectorAll('body *')]
      .filter((e) => { for (let a = e; a; a = a.parentElement) if (getComputedStyle(a).overflowX !== 'visible') return false; return true; })
      .filter((e) => Math.max(e.getBoundingClientRect().right, e.getBoundingClientRect().left + e.scrollWidth) > window.innerWidth + 0.5)
      .map((e) => e.tagName.toLowerCase() + (e.className ? '.' + e.className : '') + ': ' + (e.textContent || '').slice(0, 40))`,
  );
}

/** The session an app keeps in this tab's sessionStorage, parsed; null when there is none. */
export function storedSession<T = { token: string; expiresAt: number }>(page: Page, key: string): Promise<T | null> {
  return inPage<T | null>(page, `JSON.parse(sessionStorage.getItem(${JSON.stringify(key)}) ?? 'null')`);
}
