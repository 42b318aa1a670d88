// Protects the §1/§3 conventions every client relies on: problem+json for every error, request ids, probes, rate limits.
import { describe, expect, it } from 'vitest';
import { admin, api, call, freshSourceAddress, onboardPartner, platform, registerPartner, withKey } from './support/client.js';

const listeners = [
  ['public', () => platform.publicUrl],
  ['admin', () => platform.adminUrl],
] as const;

describe('errors are problem+json on both listeners', () => {
  for (const [name, base] of listeners) {
    it(`when a route is unknown on the ${name} listener, then 404 NOT_FOUND as problem+json`, async () => {
      const answer = await call(base(), '/no/such/route');
      expect(answer.status).toBe(404);
      expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(answer.body).toEqual({
        type: '/problems/not-found',
        title: 'Not found',
        status: 404,
        code: 'NOT_FOUND',
        detail: expect.any(String),
        requestId: answer.headers['x-request-id'],
      });
    });
  }

  it('when the body is not JSON, then 400 MALFORMED_JSON', async () => {
    const answer = await api('/partner/register', { rawBody: '{"name": ', headers: { 'content-type': 'application/json' }, localAddress: freshSourceAddress() });
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('MALFORMED_JSON');
  });

  it('when the body is over 16 KiB, then 413 PAYLOAD_TOO_LARGE', async () => {
    const answer = await api('/partner/register', { body: { name: 'x'.repeat(17 * 1024) }, localAddress: freshSourceAddress() });
    expect(answer.status).toBe(413);
    expect(answer.body.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('when the body is not application/json, then 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const answer = await api('/partner/register', { rawBody: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' }, localAddress: freshSourceAddress() });
    expect(answer.status).toBe(415);
    expect(answer.body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('when a body on the admin listener is malformed, then it is problem+json too', async () => {
    const answer = await admin('/plans', { rawBody: '[', headers: { 'content-type': 'application/json' } });
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('MALFORMED_JSON');
  });
});

describe('request ids', () => {
  it('when the caller sends a sane X-Request-Id, then it is echoed in the header and in errors', async () => {
    const answer = await call(platform.publicUrl, '/nope', { headers: { 'x-request-id': 'partner-trace-123' } });
    expect(answer.headers['x-request-id']).toBe('partner-trace-123');
    expect(answer.body.requestId).toBe('partner-trace-123');
  });

  it('when it sends none or an unsafe one, then one is generated', async () => {
    for (const headers of [{}, { 'x-request-id': 'has spaces and <script>' }] as Array<Record<string, string>>) {
      const answer = await call(platform.publicUrl, '/healthz', { headers });
      expect(answer.headers['x-request-id']).toMatch(/^req_[0-9a-z]{26}$/);
    }
  });
});

describe('probes, metrics and documents', () => {
  for (const [name, base] of listeners) {
    it(`when the ${name} listener is probed, then healthz, readyz, metrics, openapi.json and docs answer`, async () => {
      expect((await call(base(), '/healthz')).body).toEqual({ status: 'ok' });
      const ready = await call(base(), '/readyz');
      expect(ready.status).toBe(200);
      // The gateway's own dependencies only; backends are not (see backend-outage.test.ts).
      expect(ready.body).toEqual({ status: 'ready', checks: { redis: 'ok', nats: 'ok' } });
      const metrics = await call(base(), '/metrics');
      expect(metrics.status).toBe(200);
      expect(metrics.headers['x-request-id']).toMatch(/^req_[0-9a-z]{26}$/);
      expect(metrics.text).toMatch(/^# (HELP|TYPE) /m);
      const openapi = await call(base(), '/openapi.json');
      expect(openapi.body.openapi).toBe('3.1.0');
      const prefix = name === 'public' ? '/api/v1/' : '/admin/v1/';
      // The one exception: the supplier's notifications, at the root of the public listener (§13).
      const outside = Object.keys(openapi.body.paths).filter((p) => !p.startsWith(prefix));
      expect(outside).toEqual(name === 'public' ? ['/supplier/v1/notifications'] : []);
      const docs = await call(base(), '/docs/');
      expect(docs.status).toBe(200);
      expect(docs.text).toMatch(/swagger/i);
    });
  }

  it('when requests are served, then the HTTP duration histogram has them by route and status', async () => {
    await call(platform.publicUrl, '/api/v1/partner/catalog');
    const metrics = await call(platform.publicUrl, '/metrics');
    expect(metrics.text).toMatch(/http_server_request_duration_ms_count\{[^}]*route="\/api\/v1\/partner\/catalog"[^}]*status="401"/);
  });

  it('when the public OpenAPI document is read, then every error answer is documented as a Problem', async () => {
    const { body } = await call(platform.publicUrl, '/openapi.json');
    const register = body.paths['/api/v1/partner/register'].post;
    expect(Object.keys(register.responses).sort()).toEqual(['201', '400', '409', '413', '415', '429', '503']);
    expect(JSON.stringify(register.responses['409'])).toContain('Problem');
  });
});

describe('rate limits', () => {
  it('when one address registers a 21st time within the hour, then 429 RATE_LIMITED with Retry-After', async () => {
    const address = freshSourceAddress();
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) {
      const answer = await api('/partner/register', { body: { name: 'x' }, localAddress: address });
      statuses.push(answer.status);
      if (i === 20) {
        expect(answer.body.code).toBe('RATE_LIMITED');
        expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
      }
    }
    expect(statuses.slice(0, 20).every((s) => s === 400)).toBe(true);
    expect(statuses[20]).toBe(429);
  });

  it('when an e-mail fails to log in 10 times, then the 11th attempt is 429 even with the right password', async () => {
    const { application } = await registerPartner();
    for (let i = 0; i < 10; i++) {
      expect((await api('/partner/login', { body: { email: application.email, password: 'wrong-password!' } })).status).toBe(401);
    }
    const blocked = await api('/partner/login', { body: { email: application.email, password: application.password } });
    expect(blocked.status).toBe(429);
    expect(blocked.body.code).toBe('RATE_LIMITED');
    expect(blocked.headers['retry-after']).toBeDefined();
    const other = await registerPartner();
    expect((await api('/partner/login', { body: { email: other.application.email, password: other.application.password } })).status).toBe(200);
  });

  it('when a key exceeds its limit, then 429 RATE_LIMITED with Retry-After, and other keys are unaffected', async () => {
    const [busy, calm] = await Promise.all([onboardPartner(), onboardPartner()]);
    const answers = await Promise.all(Array.from({ length: 101 }, () => api('/partner/catalog?limit=1', withKey(busy.apiKey))));
    const limited = answers.filter((a) => a.status === 429);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(100);
    expect(limited).toHaveLength(1);
    expect(limited[0]!.body.code).toBe('RATE_LIMITED');
    expect(Number(limited[0]!.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited[0]!.headers['ratelimit-remaining']).toBe('0');
    expect((await api('/partner/catalog?limit=1', withKey(calm.apiKey))).status).toBe(200);
  });
});
