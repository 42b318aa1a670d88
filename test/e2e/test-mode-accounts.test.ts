// Protects §14's accounts side through the real gateway: test keys (form, mode, the pending partner, status refusals, at most 5, revocation within 2 s, their own rate limit), GET /partner/me, the test webhook URL and secret, the test-data deletion request and the portal twins' ?livemode=false.
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { namespace } from '@esim/events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  admin,
  api,
  call,
  control,
  expectProblem,
  onboardPartner,
  platform,
  portalToken,
  registerPartner,
  until,
  verifyEmailOf,
  waitForMail,
  withKey,
  withToken,
  type Answer,
} from './support/client.js';

const testKeyPattern = /^sk_test_[a-z0-9]{12}_[A-Za-z0-9]{32,}$/;

/** A registered partner (pending: e-mail not even verified) with a portal session. */
async function pendingPartner(): Promise<{ id: string; email: string; token: string }> {
  const { application, answer } = await registerPartner();
  expect(answer.status, answer.text).toBe(201);
  return { id: answer.body.id, email: application.email, token: await portalToken(application.email, application.password) };
}

/**
 * The gateway let the request through to the service with the test account
 * (no 401, 403, 429 or 500). What the wallet and orders services answer for
 * a test account is theirs (tm-money): 200 with an empty account once they
 * accept account ids; until then they may refuse `ptn_…_test` as a field.
 */
function expectPastTheDoor(answer: Answer): void {
  expect([401, 403, 429, 500, 503], `${answer.status}: ${answer.text}`).not.toContain(answer.status);
}

async function createTestKey(token: string): Promise<{ key: string; id: string; prefix: string }> {
  const created = await api('/partner/me/test-keys', { method: 'POST', ...withToken(token) });
  expect(created.status, created.text).toBe(201);
  return created.body;
}

describe('test keys (§14)', () => {
  it('when a pending partner creates a test key, then 201 shows it once as sk_test_ with all four scopes, and the key is let through its routes under its own rate limit', async () => {
    const partner = await pendingPartner();
    const created = await api('/partner/me/test-keys', { method: 'POST', ...withToken(partner.token) });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(['createdAt', 'id', 'key', 'prefix', 'scopes']);
    expect(created.body.key).toMatch(testKeyPattern);
    expect(created.body.key).toContain(`sk_test_${created.body.prefix}_`);
    expect(created.body.id).toMatch(/^key_/);
    expect(created.body.scopes.sort()).toEqual(['catalog:read', 'orders:read', 'orders:write', 'wallet:read']);

    const catalog = await api('/partner/catalog?limit=1', withKey(created.body.key));
    expect(catalog.status, catalog.text).toBe(200);
    // Its own budget: RATE_LIMIT_PER_TEST_KEY (default 25 a second), not the live keys' 100.
    expect(catalog.headers['ratelimit-limit']).toBe('25');
    const wallet = await api('/partner/wallet', withKey(created.body.key));
    expectPastTheDoor(wallet);
    if (wallet.status === 200) expect(wallet.body).toMatchObject({ balance: 0, ledger: [] });
    // The same key sent as X-Api-Key works too (§4's header rules hold for test keys).
    expect((await api('/partner/catalog?limit=1', { headers: { 'x-api-key': created.body.key } })).status).toBe(200);
    // A test key's prefix with the live marker is not a key.
    expectProblem(await api('/partner/catalog', withKey(created.body.key.replace('sk_test_', 'sk_live_'))), 401, 'INVALID_API_KEY');
    // A test key on a portal route is the wrong credential.
    expectProblem(await api('/partner/me', withKey(created.body.key)), 401, 'INVALID_TOKEN');
  });

  it('when GET /partner/me is read, then testKeys lists the test keys beside apiKeys, each with livemode, and never a key', async () => {
    const onboarded = await onboardPartner();
    const token = await portalToken(onboarded.email, onboarded.password);
    const created = await createTestKey(token);
    const me = await api('/partner/me', withToken(token));
    expect(me.status).toBe(200);
    expect(me.body.apiKeys).toHaveLength(1);
    expect(me.body.apiKeys[0]).toMatchObject({ livemode: true });
    expect(me.body.testKeys).toEqual([
      { id: created.id, prefix: created.prefix, scopes: expect.any(Array), livemode: false, createdAt: expect.any(String), lastUsedAt: null, revokedAt: null },
    ]);
    expect(me.text).not.toContain(created.key);
    expect(me.text).not.toContain(onboarded.apiKey);
    expect(me.text).not.toMatch(/sk_(live|test)_/);
  });

  it('when an approved partner uses its test key and its live key, then each sees its own account: a live top-up is invisible to the test key', async () => {
    const onboarded = await onboardPartner();
    const token = await portalToken(onboarded.email, onboarded.password);
    const { key } = await createTestKey(token);
    const topUp = await admin(`/partners/${onboarded.id}/wallet/topups`, { body: { amount: 5_000, reference: `wire-${onboarded.id}` } });
    expect(topUp.status, topUp.text).toBe(201);
    expect((await api('/partner/wallet', withKey(onboarded.apiKey))).body.balance).toBe(5_000);
    const test = await api('/partner/wallet', withKey(key));
    expectPastTheDoor(test);
    expect(test.body.balance).not.toBe(5_000);
    if (test.status === 200) expect(test.body).toMatchObject({ balance: 0, ledger: [] });
    expect((await api('/partner/wallet', withKey(onboarded.apiKey))).headers['ratelimit-limit']).toBe('100');
  });

  it('when the partner is rejected or suspended, then its test key is 403 ACCOUNT_NOT_ACTIVE within 2 s and creating one is 403 too', async () => {
    const rejected = await pendingPartner();
    const rejectedKey = await createTestKey(rejected.token);
    expect((await admin(`/partners/${rejected.id}/reject`, { body: { reason: 'Incomplete company details' } })).status).toBe(200);

    const suspended = await onboardPartner();
    const suspendedToken = await portalToken(suspended.email, suspended.password);
    const suspendedKey = await createTestKey(suspendedToken);
    expect((await admin(`/partners/${suspended.id}/suspend`, { method: 'POST' })).status).toBe(200);

    await until(
      async () => {
        const answers = await Promise.all([api('/partner/catalog', withKey(rejectedKey.key)), api('/partner/catalog', withKey(suspendedKey.key))]);
        return answers.every((a) => a.status === 403) ? answers : undefined;
      },
      'both test keys to be refused',
      2_000,
    );
    expectProblem(await api('/partner/wallet', withKey(rejectedKey.key)), 403, 'ACCOUNT_NOT_ACTIVE');
    expectProblem(await api('/partner/catalog', withKey(suspendedKey.key)), 403, 'ACCOUNT_NOT_ACTIVE');
    // The rejected partner's session from before the rejection: the portal's test-mode calls are refused.
    for (const token of [rejected.token, suspendedToken]) {
      expectProblem(await api('/partner/me/test-keys', { method: 'POST', ...withToken(token) }), 403, 'ACCOUNT_NOT_ACTIVE');
      expectProblem(await api('/partner/me/test-webhook-secret', { method: 'POST', ...withToken(token) }), 403, 'ACCOUNT_NOT_ACTIVE');
      expectProblem(await api('/partner/me/test-data/delete', { method: 'POST', ...withToken(token) }), 403, 'ACCOUNT_NOT_ACTIVE');
      expectProblem(await api('/partner/me/wallet?livemode=false', withToken(token)), 403, 'ACCOUNT_NOT_ACTIVE');
    }
  });

  it('when a pending partner prices with its test key, then it sees the standard tier; once approved at premium, its test key sees premium prices within 2 s', async () => {
    const { application, answer } = await registerPartner();
    const token = await portalToken(application.email, application.password);
    const { key } = await createTestKey(token);
    const prices = async (credential: string) =>
      ((await api('/partner/catalog?limit=100', withKey(credential))).body.data as Array<{ id: string; wholesalePrice: number }>).map((p) => [p.id, p.wholesalePrice]);
    const standard = await onboardPartner('standard');
    expect(await prices(key)).toEqual(await prices(standard.apiKey));

    await verifyEmailOf(application.email);
    expect((await admin(`/partners/${answer.body.id}/approve`, { body: { tier: 'premium' } })).status).toBe(200);
    const premium = await onboardPartner('premium');
    const premiumPrices = await prices(premium.apiKey);
    expect(premiumPrices).not.toEqual(await prices(standard.apiKey));
    await until(async () => (JSON.stringify(await prices(key)) === JSON.stringify(premiumPrices) ? true : undefined), 'the test key to price at premium', 2_000);
  });

  it('when 5 test keys are active, then the 6th is 409 INVALID_STATE; revoking one makes room', async () => {
    const partner = await pendingPartner();
    const keys = [];
    for (let i = 0; i < 5; i += 1) keys.push(await createTestKey(partner.token));
    expectProblem(await api('/partner/me/test-keys', { method: 'POST', ...withToken(partner.token) }), 409, 'INVALID_STATE');
    expect((await api(`/partner/me/test-keys/${keys[0]!.id}/revoke`, { method: 'POST', ...withToken(partner.token) })).status).toBe(200);
    expect((await api('/partner/me/test-keys', { method: 'POST', ...withToken(partner.token) })).status).toBe(201);
  });

  it('when a test key is revoked, then 200 with its metadata and it is 401 INVALID_API_KEY within 2 s; a live key id, an unknown or malformed id is 404', async () => {
    const onboarded = await onboardPartner();
    const token = await portalToken(onboarded.email, onboarded.password);
    const created = await createTestKey(token);
    expect((await api('/partner/catalog', withKey(created.key))).status).toBe(200);
    const revoked = await api(`/partner/me/test-keys/${created.id}/revoke`, { method: 'POST', ...withToken(token) });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: created.id, prefix: created.prefix, livemode: false, revokedAt: expect.any(String) });
    expect(revoked.text).not.toContain(created.key);
    await until(async () => ((await api('/partner/catalog', withKey(created.key))).status === 401 ? true : undefined), 'the revoked test key to be refused', 2_000);
    expectProblem(await api('/partner/catalog', withKey(created.key)), 401, 'INVALID_API_KEY');
    // Revoking again answers the key unchanged.
    expect((await api(`/partner/me/test-keys/${created.id}/revoke`, { method: 'POST', ...withToken(token) })).body).toEqual(revoked.body);

    const liveKeyId = (await api('/partner/me', withToken(token))).body.apiKeys[0].id;
    for (const id of [liveKeyId, 'key_01jz0000000000000000000000', 'nonsense']) {
      expectProblem(await api(`/partner/me/test-keys/${id}/revoke`, { method: 'POST', ...withToken(token) }), 404, 'NOT_FOUND');
    }
    expect((await api('/partner/catalog', withKey(onboarded.apiKey))).status).toBe(200);
    // Another partner cannot revoke it either.
    const other = await pendingPartner();
    const otherKey = await createTestKey(other.token);
    expectProblem(await api(`/partner/me/test-keys/${otherKey.id}/revoke`, { method: 'POST', ...withToken(token) }), 404, 'NOT_FOUND');
  });
});

describe('the test keys’ own rate limit (RATE_LIMIT_PER_TEST_KEY)', () => {
  it('when a test key calls a gateway configured with 25/10s 30 times, then 25 answer 200 and 5 answer 429 RATE_LIMITED; a live key on it keeps its own budget', async () => {
    const replica = await control<{ publicUrl: string }>(`/replicas/gateway?RATE_LIMIT_PER_TEST_KEY=${encodeURIComponent('25/10s')}`, 'POST');
    expect(replica.status, replica.text).toBe(200);
    const onboarded = await onboardPartner();
    const { key } = await createTestKey(await portalToken(onboarded.email, onboarded.password));

    const answers = [];
    for (let batch = 0; batch < 3; batch += 1) {
      answers.push(...(await Promise.all(Array.from({ length: 10 }, () => call(replica.body.publicUrl, '/api/v1/partner/catalog?limit=1', withKey(key))))));
    }
    expect(answers.filter((a) => a.status === 200)).toHaveLength(25);
    const refused = answers.filter((a) => a.status !== 200);
    expect(refused).toHaveLength(5);
    for (const answer of refused) {
      expectProblem(answer, 429, 'RATE_LIMITED');
      expect(answer.headers['ratelimit-limit']).toBe('25');
      expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    const live = await call(replica.body.publicUrl, '/api/v1/partner/catalog?limit=1', withKey(onboarded.apiKey));
    expect(live.status).toBe(200);
    expect(live.headers['ratelimit-limit']).toBe('100');
  });
});

describe('test webhooks (§14)', () => {
  it('when a pending partner sets and clears testWebhookUrl, then the view shows it, §9 rules apply, and each change is e-mailed', async () => {
    const partner = await pendingPartner();
    const set = await api('/partner/me', { method: 'PATCH', body: { testWebhookUrl: 'https://reseller.example/hooks/test' }, ...withToken(partner.token) });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toMatchObject({ testWebhookUrl: 'https://reseller.example/hooks/test', webhookUrl: null });
    expect((await api('/partner/me', withToken(partner.token))).body.testWebhookUrl).toBe('https://reseller.example/hooks/test');
    const [mail] = await waitForMail(partner.email, 'Your webhook URL was changed');
    expect(mail!.text).toContain('https://reseller.example/hooks/test (test mode)');

    for (const bad of ['not a url', 'ftp://reseller.example/x']) {
      const refused = await api('/partner/me', { method: 'PATCH', body: { testWebhookUrl: bad }, ...withToken(partner.token) });
      expectProblem(refused, 400, 'VALIDATION_ERROR');
      expect(refused.body.errors.map((e: { path: string }) => e.path)).toContain('testWebhookUrl');
    }
    const cleared = await api('/partner/me', { method: 'PATCH', body: { testWebhookUrl: null }, ...withToken(partner.token) });
    expect(cleared.body.testWebhookUrl).toBeNull();
    await waitForMail(partner.email, 'Your webhook URL was changed', { count: 2 });
  });

  it('when a pending partner asks for a test signing secret twice, then each is a fresh whsec_ shown once', async () => {
    const partner = await pendingPartner();
    const first = await api('/partner/me/test-webhook-secret', { method: 'POST', ...withToken(partner.token) });
    const second = await api('/partner/me/test-webhook-secret', { method: 'POST', ...withToken(partner.token) });
    expect(first.status).toBe(200);
    expect(Object.keys(first.body)).toEqual(['secret']);
    expect(first.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(second.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(second.body.secret).not.toBe(first.body.secret);
    expect((await api('/partner/me', withToken(partner.token))).text).not.toContain(second.body.secret);
  });
});

describe('test data deletion (§14)', () => {
  let nc: NatsConnection;
  beforeAll(async () => {
    nc = await connect({ servers: platform.natsUrl });
  });
  afterAll(() => nc?.close());

  it('when a pending partner asks to delete its test data, then 202 names its test account and partners.test_data.delete_requested is published for it; its test key still works', async () => {
    const partner = await pendingPartner();
    const { key } = await createTestKey(partner.token);
    const received: Array<Record<string, unknown>> = [];
    const subscription = nc.subscribe(namespace(platform.namespace).subject('partners.test_data.delete_requested'), {
      callback: (_error, message) => {
        received.push(message.json<Record<string, unknown>>());
      },
    });
    await nc.flush();
    try {
      const answer = await api('/partner/me/test-data/delete', { method: 'POST', ...withToken(partner.token) });
      expect(answer.status, answer.text).toBe(202);
      expect(answer.body).toEqual({ accountId: `${partner.id}_test`, requestedAt: expect.any(String) });
      const event = await until(
        async () => received.find((e) => (e.data as { accountId?: string } | undefined)?.accountId === `${partner.id}_test`),
        'the deletion request on the stream',
        15_000,
      );
      expect(event.data).toEqual({ accountId: `${partner.id}_test`, requestedAt: answer.body.requestedAt });
    } finally {
      subscription.unsubscribe();
    }
    expect((await api('/partner/catalog', withKey(key))).status).toBe(200);
  });
});

describe('the portal twins in test mode (?livemode=false)', () => {
  const twins = ['/partner/me/wallet', '/partner/me/wallet/ledger', '/partner/me/orders', '/partner/me/catalog'];

  it('when a pending partner reads the portal twins, then live is 403 ACCOUNT_NOT_ACTIVE and ?livemode=false goes through to its test account', async () => {
    const partner = await pendingPartner();
    for (const path of twins) {
      expectProblem(await api(path, withToken(partner.token)), 403, 'ACCOUNT_NOT_ACTIVE');
      expectProblem(await api(`${path}?livemode=true`, withToken(partner.token)), 403, 'ACCOUNT_NOT_ACTIVE');
      expectPastTheDoor(await api(`${path}?livemode=false`, withToken(partner.token)));
    }
    const catalog = await api('/partner/me/catalog?livemode=false&limit=1', withToken(partner.token));
    expect(catalog.status, catalog.text).toBe(200);
    expect(catalog.body.data).toHaveLength(1);
    expectProblem(await api('/partner/me/wallet?livemode=maybe', withToken(partner.token)), 400, 'VALIDATION_ERROR');
  });

  it('when an approved partner switches the portal to test mode, then it does not read the live wallet', async () => {
    const onboarded = await onboardPartner();
    const token = await portalToken(onboarded.email, onboarded.password);
    await admin(`/partners/${onboarded.id}/wallet/topups`, { body: { amount: 700, reference: `wire-${onboarded.id}` } });
    expect((await api('/partner/me/wallet', withToken(token))).body.balance).toBe(700);
    const test = await api('/partner/me/wallet?livemode=false', withToken(token));
    expectPastTheDoor(test);
    expect(test.body.balance).not.toBe(700);
    if (test.status === 200) expect(test.body).toMatchObject({ balance: 0, ledger: [] });
    expectPastTheDoor(await api('/partner/me/wallet/ledger?livemode=false&page=1&limit=5', withToken(token)));
  });

  it('when the OpenAPI document is read, then every portal twin documents the livemode query parameter', async () => {
    const doc = (await call(platform.publicUrl, '/openapi.json')).body;
    for (const path of [...twins, '/partner/me/orders/{orderId}']) {
      const parameters = doc.paths[`/api/v1${path}`].get.parameters as Array<{ name: string; in: string }>;
      expect(parameters, path).toContainEqual(expect.objectContaining({ name: 'livemode', in: 'query' }));
    }
    expect(doc.paths['/api/v1/partner/me/test-keys'].post.responses['201']).toBeDefined();
  });
});
