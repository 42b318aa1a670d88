/**
 * A real Chromium (Debian's package) driven by playwright-core, for the
 * journeys through the two web apps: a fresh profile per run, every page
 * watched for script errors, Content-Security-Policy violations and
 * requests leaving its own origin, an axe-core scan on demand, and
 * screenshots under var/test-results/portals/.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { chromiumPath as chromiumPathIn } from '../../../scripts/chromium.js';
import { repoRoot } from '../../../scripts/launcher/supervisor.js';

/** Debian's package, or CHROMIUM_PATH; npm test finds or installs it first (scripts/chromium.ts). */
export const chromiumPath = chromiumPathIn(process.env);
export const screenshotDir = join(repoRoot, 'var', 'test-results', 'portals');
const chromiumArgs = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

function newestChange(dir: string): number {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && !entry.parentPath.includes(`${join('web', 'dist')}`))
    .reduce((newest, entry) => Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs), 0);
}

/**
 * `npm install` builds the apps; this rebuilds them when a source under
 * web/ is newer than the build, so the journeys test the code as it is.
 * The gateway serves files from disk, so a rebuild is live at once.
 */
export function ensureWebBuilt(): void {
  const web = join(repoRoot, 'web');
  const builds = ['portal', 'console'].map((app) => join(web, 'dist', app, 'index.html'));
  const builtAt = Math.min(...builds.map((file) => (existsSync(file) ? statSync(file).mtimeMs : 0)));
  if (builtAt > newestChange(web)) return;
  const run = spawnSync(process.execPath, ['--import', 'tsx', join(web, 'build.ts')], { cwd: repoRoot, stdio: 'inherit' });
  if (run.status !== 0) throw new Error('npm run build:web failed');
}

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(chromiumPath)) throw new Error(`${chromiumPath} is missing: sudo apt-get install -y chromium (or set CHROMIUM_PATH)`);
  mkdirSync(screenshotDir, { recursive: true });
  const profile = mkdtempSync(join(tmpdir(), 'esim-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: chromiumArgs,
    locale: 'en-US',
    timezoneId: 'UTC',
    viewport: { width: 1100, height: 760 },
  });
  context.setDefaultTimeout(15_000);
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** A page and what went wrong on it so far: script errors, CSP violations, requests to another origin. */
export interface WatchedPage {
  page: Page;
  problems: string[];
}

export async function openPage(browser: Browser, url: string): Promise<WatchedPage> {
  const page = await browser.context.newPage();
  const origin = new URL(url).origin;
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`script error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && !/status of 40[0-9]|status of 50[0-9]/.test(message.text())) problems.push(`console error: ${message.text()}`);
  });
  page.on('request', (request) => {
    const target = request.url();
    if (!target.startsWith('data:') && new URL(target).origin !== origin) problems.push(`request to another origin: ${target}`);
  });
  await page.goto(url);
  return { page, problems };
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/**
 * Runs axe-core in the page (evaluated through the DevTools protocol, so
 * the page's strict CSP stays on) and answers the serious and critical
 * violations, each with the elements it found.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await inPage<boolean>(page, "typeof axe === 'object'"))) await page.evaluate(axeSource);
  const violations = await inPage<AxeViolation[]>(
    page,
    "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) })))",
  );
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id} (${v.help}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** Evaluates a JavaScript expression in the page (the tests are not typed for the DOM, so page code is written as text). */
export function inPage<T>(page: Page, expression: string): Promise<T> {
  return page.evaluate(expression) as Promise<T>;
}

export async function screenshot(page: Page, name: string): Promise<string> {
  const path = join(screenshotDir, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
