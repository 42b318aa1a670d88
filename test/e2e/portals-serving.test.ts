// Protects how the gateway serves the two web apps: each on its own listener only, hashed assets cached for good, pages revalidated, a strict CSP, and no inline script.
import { beforeAll, describe, expect, it } from 'vitest';
import { call, platform } from './support/client.js';
import { ensureWebBuilt } from './support/browser.js';

beforeAll(() => ensureWebBuilt());

const csp = (header: unknown) => new Map(String(header).split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name, values]));

describe.each([
  { app: 'portal', own: () => platform.publicUrl, other: () => platform.adminUrl },
  { app: 'console', own: () => platform.adminUrl, other: () => platform.publicUrl },
])('the $app', ({ app, own, other }) => {
  it('when opened without the trailing slash, then 301 to /<app>/, keeping the query', async () => {
    const answer = await call(own(), `/${app}?from=mail`);
    expect(answer.status).toBe(301);
    expect(answer.headers.location).toBe(`/${app}/?from=mail`);
  });

  it('when its page is fetched, then HTML revalidated on every visit, under a CSP that allows only its own scripts, styles and API', async () => {
    const answer = await call(own(), `/${app}/`);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^text\/html/);
    expect(answer.headers['cache-control']).toBe('no-cache');
    const policy = csp(answer.headers['content-security-policy']);
    expect(Object.fromEntries(policy)).toMatchObject({
      'default-src': ["'self'"],
      'script-src': ["'self'"],
      'style-src': ["'self'"],
      'connect-src': ["'self'"],
      'frame-ancestors': ["'none'"],
      'img-src': ["'self'", 'data:'],
    });
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    // Every script and stylesheet is a file of the app; nothing inline for the CSP to refuse.
    expect(answer.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|<style|\sstyle=|\son[a-z]+=/i);
    const assets = [...answer.text.matchAll(/(?:src|href)="(\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const asset of assets) expect(asset).toMatch(new RegExp(`^/${app}/assets/[\\w-]+\\.(js|css)$`));
  });

  it('when a hashed asset is fetched, then it is cached for a year as immutable', async () => {
    const page = await call(own(), `/${app}/`);
    const script = /src="(\/[^"]+\.js)"/.exec(page.text)![1]!;
    const answer = await call(own(), script);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toMatch(/javascript/);
    expect(answer.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('when the other listener is asked for it, then 404 problem+json, for the page and its assets alike', async () => {
    const page = await call(own(), `/${app}/`);
    const script = /src="(\/[^"]+\.js)"/.exec(page.text)![1]!;
    for (const path of [`/${app}`, `/${app}/`, script]) {
      const answer = await call(other(), path);
      expect(answer.status, path).toBe(404);
      expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
  });

  it('when a file that does not exist, a directory or a dotfile is asked for, then 404 problem+json', async () => {
    for (const path of [`/${app}/assets/nothing.js`, `/${app}/assets/`, `/${app}/.env`, `/${app}/%2e%2e/package.json`]) {
      const answer = await call(own(), path);
      expect(answer.status, path).toBe(404);
      expect(answer.body.code, path).toBe('NOT_FOUND');
    }
  });
});

describe('the listeners’ own routes', () => {
  it('when the apps are served, then the APIs, docs, OpenAPI documents and probes answer as before', async () => {
    expect((await call(platform.publicUrl, '/openapi.json')).status).toBe(200);
    expect((await call(platform.adminUrl, '/openapi.json')).status).toBe(200);
    expect((await call(platform.publicUrl, '/healthz')).status).toBe(200);
    expect((await call(platform.adminUrl, '/docs')).status).toBeLessThan(400);
    expect((await call(platform.adminUrl, '/admin/v1/partners')).status).toBe(401);
    const document = (await call(platform.publicUrl, '/openapi.json')).body as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths).filter((path) => /portal|console/.test(path))).toEqual([]);
  });
});
