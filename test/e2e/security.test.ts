// Protects authentication and authorization of every partner route: each §3 auth code, from one shared table.
import { SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { admin, api, apiKeyPattern, call, onboardPartner, platform, portalToken, until, waitForMail, type Onboarded } from './support/client.js';
import { allScopes, apiKeyRoutes, portalRoutes, type ApiKeyRoute } from './support/securityTable.js';

interface Fixture {
  partner: Onboarded;
  token: string;
  revokedKey: string;
  suspendedKey: string;
  keysWithout: Map<string, string>;
}

let fixture: Fixture;

async function issueKey(partnerId: string, email: string, scopes: string[]): Promise<string> {
  const before = (await admin(`/partners/${partnerId}/keys`)).body.data.length as number;
  const issued = await admin(`/partners/${partnerId}/keys`, { body: { scopes } });
  const mails = await waitForMail(email, 'A new API key was issued', { count: before });
  const mail = mails.find((m) => m.text.includes(issued.body.prefix))!;
  return apiKeyPattern.exec(mail.text)![1]!;
}

beforeAll(async () => {
  const [partner, revoked, suspended] = await Promise.all([onboardPartner(), onboardPartner(), onboardPartner()]);
  const keysWithout = new Map<string, string>();
  for (const scope of allScopes) {
    keysWithout.set(scope, await issueKey(partner.id, partner.email, allScopes.filter((s) => s !== scope)));
  }
  const revokedKeyId = (await admin(`/partners/${revoked.id}/keys`)).body.data[0].id;
  await admin(`/partners/${revoked.id}/keys/${revokedKeyId}/revoke`, { method: 'POST' });
  await admin(`/partners/${suspended.id}/suspend`, { method: 'POST' });
  fixture = {
    partner,
    token: await portalToken(partner.email, partner.password),
    revokedKey: revoked.apiKey,
    suspendedKey: suspended.apiKey,
    keysWithout,
  };
  // Revocation and suspension reach the gateway's cache through the outbox: wait (2 s at most) until both keys are refused.
  const probe = apiKeyRoutes[0]!;
  await until(async () => {
    const [revokedAnswer, suspendedAnswer] = await Promise.all([
      api(probe.path, { method: probe.method, body: probe.body, headers: { authorization: `Bearer ${fixture.revokedKey}` } }),
      api(probe.path, { method: probe.method, body: probe.body, headers: { authorization: `Bearer ${fixture.suspendedKey}` } }),
    ]);
    return revokedAnswer.status === 401 && suspendedAnswer.status === 403 ? true : undefined;
  }, 'the revoked and the suspended key to be refused', 2_000);
}, 120_000);

const send = (route: ApiKeyRoute, headers: Record<string, string>) => api(route.path, { method: route.method, body: route.body, headers });

for (const route of apiKeyRoutes) {
  describe(`${route.method} ${route.path} (API key, ${route.scope})`, () => {
    const expectProblem = (answer: { status: number; body: any; headers: any }, status: number, code: string) => {
      expect(answer.status).toBe(status);
      expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(answer.body).toMatchObject({ status, code, type: `/problems/${code.toLowerCase().replaceAll('_', '-')}`, requestId: expect.any(String) });
    };

    it('when no credentials are sent, then 401 UNAUTHENTICATED', async () => {
      expectProblem(await send(route, {}), 401, 'UNAUTHENTICATED');
    });

    for (const [label, key] of [
      ['a malformed key', 'sk_live_tooshort'],
      ['a key of another form', 'pk_test_abcdefabcdef_ABCDEFGHIJKLMNOPQRSTUVWXYZ123456'],
      ['an unknown well-formed key', `sk_live_zzzzzzzzzzzz_${'A'.repeat(40)}`],
    ] as const) {
      it(`when ${label} is sent, then 401 INVALID_API_KEY`, async () => {
        expectProblem(await send(route, { authorization: `Bearer ${key}` }), 401, 'INVALID_API_KEY');
      });
    }

    it('when a real prefix comes with a wrong secret, then 401 INVALID_API_KEY', async () => {
      const [, , , prefix] = /^(sk)_(live)_([a-z0-9]{12})_/.exec(fixture.partner.apiKey)!;
      expectProblem(await send(route, { authorization: `Bearer sk_live_${prefix}_${'B'.repeat(40)}` }), 401, 'INVALID_API_KEY');
    });

    it('when a revoked key is sent, then 401 INVALID_API_KEY', async () => {
      expectProblem(await send(route, { authorization: `Bearer ${fixture.revokedKey}` }), 401, 'INVALID_API_KEY');
    });

    it('when a portal JWT is sent instead of a key, then 401 INVALID_TOKEN', async () => {
      expectProblem(await send(route, { authorization: `Bearer ${fixture.token}` }), 401, 'INVALID_TOKEN');
    });

    it(`when the key lacks ${route.scope}, then 403 INSUFFICIENT_SCOPE naming it`, async () => {
      const answer = await send(route, { authorization: `Bearer ${fixture.keysWithout.get(route.scope)}` });
      expectProblem(answer, 403, 'INSUFFICIENT_SCOPE');
      expect(answer.body.detail).toContain(route.scope);
    });

    it('when the partner is suspended, then 403 ACCOUNT_NOT_ACTIVE', async () => {
      expectProblem(await send(route, { authorization: `Bearer ${fixture.suspendedKey}` }), 403, 'ACCOUNT_NOT_ACTIVE');
    });

    const expectAccepted = (answer: { status: number; body: any }) => {
      if (route.accepted) expect({ status: answer.status, code: answer.body.code }).toEqual(route.accepted);
      else expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    };

    it('when the key comes in X-Api-Key, then it is accepted and rate-limit headers are set', async () => {
      const answer = await send(route, { 'x-api-key': fixture.partner.apiKey });
      expectAccepted(answer);
      expect(answer.headers['ratelimit-limit']).toBe('100');
      expect(Number(answer.headers['ratelimit-remaining'])).toBeGreaterThanOrEqual(0);
      expect(Number(answer.headers['ratelimit-reset'])).toBeGreaterThanOrEqual(0);
    });

    it('when both headers are sent, then Authorization wins', async () => {
      expectAccepted(await send(route, { authorization: `Bearer ${fixture.partner.apiKey}`, 'x-api-key': 'garbage' }));
      expectProblem(await send(route, { authorization: 'Bearer garbage', 'x-api-key': fixture.partner.apiKey }), 401, 'INVALID_API_KEY');
    });
  });
}

for (const route of portalRoutes) {
  describe(`${route.method} ${route.path} (portal JWT)`, () => {
    const sendPortal = (headers: Record<string, string>) => api(route.path, { method: route.method, body: route.body, headers });
    const mint = (claims: { exp: number; aud?: string }, secret = platform.jwtSecret) =>
      new SignJWT({})
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(fixture.partner.id)
        .setIssuer('esim-platform')
        .setAudience(claims.aud ?? 'partner-portal')
        .setIssuedAt(claims.exp - 3600)
        .setExpirationTime(claims.exp)
        .sign(Buffer.from(secret, 'base64'));

    it('when the token is valid, then it answers 200', async () => {
      expect((await sendPortal({ authorization: `Bearer ${fixture.token}` })).status).toBe(200);
    });

    it('when no token is sent, then 401 UNAUTHENTICATED', async () => {
      const answer = await sendPortal({});
      expect(answer.status).toBe(401);
      expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(answer.body.code).toBe('UNAUTHENTICATED');
    });

    const now = Math.floor(Date.now() / 1000);
    const cases: Array<[string, () => Promise<Record<string, string>>]> = [
      ['an API key is sent as the bearer', async () => ({ authorization: `Bearer ${fixture.partner.apiKey}` })],
      ['an API key is sent in X-Api-Key', async () => ({ 'x-api-key': fixture.partner.apiKey })],
      ['the token is malformed', async () => ({ authorization: 'Bearer not.a.jwt' })],
      ['the token is expired', async () => ({ authorization: `Bearer ${await mint({ exp: now - 60 })}` })],
      ['the token is signed with another key', async () => ({ authorization: `Bearer ${await mint({ exp: now + 600 }, Buffer.alloc(32, 7).toString('base64'))}` })],
      ['the token is for another audience', async () => ({ authorization: `Bearer ${await mint({ exp: now + 600, aud: 'other' })}` })],
      ['the token was tampered with', async () => ({ authorization: `Bearer ${fixture.token.slice(0, -2)}xx` })],
    ];
    for (const [label, headers] of cases) {
      it(`when ${label}, then 401 INVALID_TOKEN`, async () => {
        const answer = await sendPortal(await headers());
        expect(answer.status).toBe(401);
        expect(answer.body.code).toBe('INVALID_TOKEN');
      });
    }
  });
}

describe('admin API', () => {
  it('when no admin token is sent, then 401 UNAUTHENTICATED; when it is wrong, then 401 INVALID_TOKEN', async () => {
    const missing = await admin('/partners', { headers: { authorization: '' } });
    expect(missing.status).toBe(401);
    expect(missing.body.code).toBe('UNAUTHENTICATED');
    const wrong = await admin('/partners', { headers: { authorization: 'Bearer wrong-token' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe('INVALID_TOKEN');
    const partnerKey = await admin('/partners', { headers: { authorization: `Bearer ${fixture.partner.apiKey}` } });
    expect(partnerKey.status).toBe(401);
    expect(partnerKey.body.code).toBe('INVALID_TOKEN');
  });

  it('when an admin path is requested on the public listener, then 404 even with the admin token', async () => {
    const answer = await call(platform.publicUrl, '/admin/v1/partners', { headers: { authorization: `Bearer ${platform.adminToken}` } });
    expect(answer.status).toBe(404);
    expect(answer.body.code).toBe('NOT_FOUND');
  });
});
