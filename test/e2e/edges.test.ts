// Protects §3 on the running platform: what the HTTP layer rejects before a route (bad URL on a real socket, text/plain bodies, unknown routes) is problem+json with X-Request-Id on both listeners, and every API answer, success or error, is no-store and nosniff while the portals' hashed assets stay immutable.
import { connect } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { admin, api, asKey, call, expectProblem, freshSourceAddress, onboardPartner, platform, type Answer, type Onboarded } from './support/client.js';
import { ensureWebBuilt } from './support/browser.js';

const listeners = [
  { name: 'public', url: () => platform.publicUrl, prefix: '/api/v1/partner/orders' },
  { name: 'admin', url: () => platform.adminUrl, prefix: '/admin/v1/partners' },
] as const;

/** A request line written byte for byte: an HTTP client would re-encode the broken path first. */
function rawGet(baseUrl: string, path: string): Promise<Answer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', text = ''] = Buffer.concat(chunks).toString('utf8').split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(text), text });
    });
    socket.end(`GET ${path} HTTP/1.1\r\nhost: ${hostname}\r\nconnection: close\r\n\r\n`);
  });
}

function expectApiHeaders(answer: Answer, what: string): void {
  expect(answer.headers['cache-control'], what).toBe('no-store');
  expect(answer.headers['x-content-type-options'], what).toBe('nosniff');
  expect(answer.headers['x-request-id'], what).toEqual(expect.any(String));
}

describe.each(listeners)('the $name listener', ({ url, prefix }) => {
  it('when a path has broken percent-encoding, then 400 VALIDATION_ERROR problem+json naming the path, with a request id', async () => {
    const answer = await rawGet(url(), `${prefix}/%E0%A4%A`);
    expectProblem(answer, 400, 'VALIDATION_ERROR');
    expect(answer.body.detail).toContain('%E0%A4%A');
    expectApiHeaders(answer, 'bad url');
  });

  it('when a route is unknown, then 404 problem+json, no-store and nosniff', async () => {
    const answer = await call(url(), `${prefix}/x/y/z`, { method: 'PUT', body: {} });
    expectProblem(answer, 404, 'NOT_FOUND');
    expectApiHeaders(answer, 'unknown route');
  });

  it('when its OpenAPI document is fetched, then it is no-store and nosniff', async () => {
    expectApiHeaders(await call(url(), '/openapi.json'), '/openapi.json');
  });
});

describe('bodies', () => {
  it('when register is sent as text/plain with a JSON-looking body, then 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const body = JSON.stringify({ name: 'T', email: 't@example.test', company: 'T', password: 'a-long-portal-password' });
    const answer = await api('/partner/register', { rawBody: body, headers: { 'content-type': 'text/plain' }, localAddress: freshSourceAddress() });
    expectProblem(answer, 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectApiHeaders(answer, 'text/plain');
  });

  it('when an admin body is text/plain, then 415 too', async () => {
    const answer = await admin('/plans', { rawBody: '{}', headers: { 'content-type': 'text/plain' } });
    expectProblem(answer, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });
});

describe('API answers are never cached', () => {
  let partner: Onboarded;
  beforeAll(async () => {
    partner = await onboardPartner();
  });

  it('when a partner reads its wallet, catalog and orders, or an operator its partners, then each answer is no-store and nosniff', async () => {
    for (const path of ['/partner/wallet', '/partner/catalog', '/partner/orders']) {
      const answer = await asKey(partner.apiKey, path);
      expect(answer.status, path).toBe(200);
      expectApiHeaders(answer, path);
    }
    const partners = await admin('/partners');
    expect(partners.status).toBe(200);
    expectApiHeaders(partners, '/admin/v1/partners');
  });
});

describe('the portals', () => {
  beforeAll(() => ensureWebBuilt());

  it.each([
    ['portal', () => platform.publicUrl],
    ['console', () => platform.adminUrl],
  ])('when a hashed %s asset is fetched, then it stays immutable, not no-store', async (app, base) => {
    const page = await call(base(), `/${app}/`);
    const script = /src="(\/[^"]+\.js)"/.exec(page.text)![1]!;
    const answer = await call(base(), script);
    expect(answer.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
  });
});
