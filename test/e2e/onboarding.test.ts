// Protects the partner journey of §4: apply, be approved, receive the key and secret by e-mail, use the portal.
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  admin,
  api,
  apiKeyPattern,
  freshSourceAddress,
  mailbox,
  onboardPartner,
  portalToken,
  registerPartner,
  uniqueEmail,
  until,
  verifyEmailOf,
  waitForMail,
  webhookSecretPattern,
  withKey,
} from './support/client.js';
import { untilMailSettled } from './support/mailQueue.js';

describe('registration', () => {
  it('when a partner applies, then it gets the pending partner view and an "application received" e-mail', async () => {
    const email = uniqueEmail('Mixed.Case');
    const { answer } = await registerPartner({ email: email.toUpperCase(), webhookUrl: 'https://hooks.example.com/esim' });
    expect(answer.status).toBe(201);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expect(answer.body).toEqual({
      id: expect.stringMatching(/^ptn_[0-9a-z]{26}$/),
      name: 'Test Partner',
      email: email.toLowerCase(),
      company: 'Test Travel Ltd',
      status: 'pending',
      tier: 'standard',
      webhookUrl: 'https://hooks.example.com/esim',
      testWebhookUrl: null,
      emailVerified: false,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    const [mail] = await waitForMail(email.toLowerCase(), 'Your application was received');
    expect(mail!.text).toContain('Test Partner');
  });

  it('when the e-mail is already registered in any case, then 409 EMAIL_ALREADY_REGISTERED', async () => {
    const { application } = await registerPartner();
    const { answer } = await registerPartner({ email: application.email.toUpperCase() });
    expect(answer.status).toBe(409);
    expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(answer.body.code).toBe('EMAIL_ALREADY_REGISTERED');
  });

  const invalid: Array<[string, Record<string, unknown>, string]> = [
    ['an empty name', { name: '' }, 'name'],
    ['a 201-character name', { name: 'n'.repeat(201) }, 'name'],
    ['a malformed e-mail', { email: 'not-an-email' }, 'email'],
    ['a 255-character e-mail', { email: `${'a'.repeat(243)}@example.test` }, 'email'],
    ['an empty company', { company: '' }, 'company'],
    ['a 201-character company', { company: 'c'.repeat(201) }, 'company'],
    ['an 11-character password', { password: 'p'.repeat(11) }, 'password'],
    ['a 129-character password', { password: 'p'.repeat(129) }, 'password'],
    ['a non-URL webhook', { webhookUrl: 'not a url' }, 'webhookUrl'],
    ['an ftp webhook', { webhookUrl: 'ftp://example.com/x' }, 'webhookUrl'],
    ['an unknown field', { plan: 'gold' }, 'plan'],
    ['a number for a name', { name: 42 }, 'name'],
  ];
  for (const [label, change, path] of invalid) {
    it(`when the application has ${label}, then 400 VALIDATION_ERROR naming ${path}`, async () => {
      const { answer } = await registerPartner(change);
      expect(answer.status).toBe(400);
      expect(answer.body.code).toBe('VALIDATION_ERROR');
      expect(answer.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    });
  }

  it('when a required field is missing, then the error names it', async () => {
    const answer = await api('/partner/register', { body: { name: 'x', email: uniqueEmail() }, localAddress: freshSourceAddress() });
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('VALIDATION_ERROR');
    expect(answer.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['company', 'password']);
  });
});

describe('login and the portal', () => {
  it('when a pending partner logs in, then it gets a one-hour portal JWT with the documented claims', async () => {
    const { application, answer } = await registerPartner();
    const login = await api('/partner/login', { body: { email: application.email.toUpperCase(), password: application.password } });
    expect(login.status).toBe(200);
    expect(login.body).toMatchObject({ tokenType: 'Bearer', expiresIn: 3600, partner: { id: answer.body.id, status: 'pending' } });
    const claims = decodeJwt(login.body.token);
    expect(claims).toMatchObject({ sub: answer.body.id, aud: 'partner-portal', iss: expect.any(String) });
    expect(claims.exp! - claims.iat!).toBe(3600);
  });

  it('when the password is wrong or the e-mail unknown, then both answer the same 401 INVALID_CREDENTIALS', async () => {
    const { application } = await registerPartner();
    const wrong = await api('/partner/login', { body: { email: application.email, password: 'not-the-password' } });
    const unknown = await api('/partner/login', { body: { email: uniqueEmail(), password: 'whatever-password' } });
    for (const answer of [wrong, unknown]) {
      expect(answer.status).toBe(401);
      expect(answer.body.code).toBe('INVALID_CREDENTIALS');
    }
    expect(wrong.body.detail).toBe(unknown.body.detail);
  });

  it('when a pending partner uses the portal, then GET and PATCH /partner/me work with its JWT', async () => {
    const { application, answer } = await registerPartner();
    const token = await portalToken(application.email, application.password);
    const me = await api('/partner/me', { headers: { authorization: `Bearer ${token}` } });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: answer.body.id, status: 'pending', apiKeys: [] });
    const patched = await api('/partner/me', { method: 'PATCH', body: { webhookUrl: 'https://hooks.example.com/new' }, headers: { authorization: `Bearer ${token}` } });
    expect(patched.status).toBe(200);
    expect(patched.body.webhookUrl).toBe('https://hooks.example.com/new');
    const cleared = await api('/partner/me', { method: 'PATCH', body: { webhookUrl: null }, headers: { authorization: `Bearer ${token}` } });
    expect(cleared.body.webhookUrl).toBeNull();
    const bad = await api('/partner/me', { method: 'PATCH', body: { webhookUrl: 'nope' }, headers: { authorization: `Bearer ${token}` } });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('VALIDATION_ERROR');
    expect(bad.body.errors[0].path).toBe('webhookUrl');
    // The refused change was not applied.
    expect((await api('/partner/me', { headers: { authorization: `Bearer ${token}` } })).body.webhookUrl).toBeNull();
  });
});

describe('operator review', () => {
  it('when the operator approves with a tier, then one e-mail carries the key, the secret and the tier, and the key works', async () => {
    const { application, answer } = await registerPartner();
    await verifyEmailOf(application.email);
    const pending = await admin(`/partners?status=pending&limit=100`);
    expect(pending.body.data.map((p: { id: string }) => p.id)).toContain(answer.body.id);

    const approved = await admin(`/partners/${answer.body.id}/approve`, { body: { tier: 'enterprise' }, headers: { 'x-operator': 'ops-alice' } });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'approved', tier: 'enterprise' });

    await waitForMail(application.email, 'Your partner account is approved');
    // Counted once no request to this address is left queued, so a duplicate could not still be on its way.
    await untilMailSettled([application.email]);
    const mails = (await mailbox(application.email)).filter((m) => m.subject === 'Your partner account is approved');
    expect(mails).toHaveLength(1);
    const text = mails[0]!.text;
    expect(text).toMatch(apiKeyPattern);
    expect(text).toMatch(webhookSecretPattern);
    expect(text).toMatch(/^Tier: enterprise$/m);
    const key = apiKeyPattern.exec(text)![1]!;
    expect(Buffer.from(webhookSecretPattern.exec(text)![1]!.slice('whsec_'.length), 'base64')).toHaveLength(32);

    const detail = await admin(`/partners/${answer.body.id}`);
    expect(detail.body.apiKeys).toHaveLength(1);
    expect(detail.body.apiKeys[0]).toMatchObject({ prefix: key.split('_')[2], scopes: ['catalog:read', 'orders:write', 'orders:read', 'wallet:read'], revokedAt: null });
    expect(JSON.stringify(detail.body)).not.toContain(key.split('_')[3]);

    const catalog = await api('/partner/catalog?limit=1', withKey(key));
    expect(catalog.status).toBe(200);

    const again = await admin(`/partners/${answer.body.id}/approve`, { body: {} });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('INVALID_STATE');
  });

  it('when approve is posted with no body at all, then the tier stays standard', async () => {
    const { application, answer } = await registerPartner();
    await verifyEmailOf(application.email);
    const approved = await admin(`/partners/${answer.body.id}/approve`, { method: 'POST' });
    expect(approved.status).toBe(200);
    expect(approved.body.tier).toBe('standard');
  });

  it('when the operator rejects, then the applicant is told the reason and can no longer log in', async () => {
    const { application, answer } = await registerPartner();
    const rejected = await admin(`/partners/${answer.body.id}/reject`, { body: { reason: 'We only work with licensed agencies.' } });
    expect(rejected.status).toBe(200);
    expect(rejected.body.status).toBe('rejected');
    const [mail] = await waitForMail(application.email, 'Your partner application was declined');
    expect(mail!.text).toMatch(/^Reason: We only work with licensed agencies\.$/m);
    const login = await api('/partner/login', { body: { email: application.email, password: application.password } });
    expect(login.status).toBe(401);
    expect(login.body.code).toBe('INVALID_CREDENTIALS');
    expect((await admin(`/partners/${answer.body.id}/approve`, { body: {} })).body.code).toBe('INVALID_STATE');
  });

  it('when a partner is suspended, then its key (already cached by the gateway) answers 403 ACCOUNT_NOT_ACTIVE within 2 s until it is reinstated, and it may still log in', async () => {
    const partner = await onboardPartner();
    // Used once, so the gateway holds the approved credential when the suspension lands.
    expect((await api('/partner/catalog?limit=1', withKey(partner.apiKey))).status).toBe(200);
    const suspended = await admin(`/partners/${partner.id}/suspend`, { method: 'POST' });
    expect(suspended.status).toBe(200);
    expect(suspended.body.status).toBe('suspended');
    const blocked = await until(async () => {
      const answer = await api('/partner/catalog?limit=1', withKey(partner.apiKey));
      return answer.status === 200 ? undefined : answer;
    }, 'the cached key to be refused', 2_000);
    expect(blocked.status).toBe(403);
    expect(blocked.body.code).toBe('ACCOUNT_NOT_ACTIVE');
    const login = await api('/partner/login', { body: { email: partner.email, password: partner.password } });
    expect(login.status).toBe(200);
    expect(login.body.partner.status).toBe('suspended');
    const again = await admin(`/partners/${partner.id}/suspend`, { method: 'POST' });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('INVALID_STATE');
    const reinstated = await admin(`/partners/${partner.id}/reinstate`, { method: 'POST' });
    expect(reinstated.status).toBe(200);
    expect(reinstated.body.status).toBe('approved');
    await until(async () => ((await api('/partner/catalog?limit=1', withKey(partner.apiKey))).status === 200 ? true : undefined), 'the key to work again', 2_000);
  });

  it('when the operator changes the tier, then the partner view shows it and the key is priced at it within 2 seconds', async () => {
    const partner = await onboardPartner('standard');
    const before = await api('/partner/catalog?limit=1', withKey(partner.apiKey));
    const plan = before.body.data[0];
    const floor = plan.wholesalePrice as number;
    const patched = await admin(`/partners/${partner.id}`, { method: 'PATCH', body: { tier: 'premium' } });
    expect(patched.body.tier).toBe('premium');
    const premium = Math.floor((floor * 110 + 50) / 100);
    expect(premium).not.toBe(floor);
    // The gateway cached the standard-tier credential; the tier change must evict it.
    const repriced = await until(async () => {
      const answer = await api('/partner/catalog?limit=1', withKey(partner.apiKey));
      return answer.body.data[0].wholesalePrice === premium ? answer : undefined;
    }, 'the key to be priced at the premium tier', 2_000);
    expect(repriced.body.data[0].id).toBe(plan.id);
  });

  it('when an unknown or malformed partner id is used, then 404 PARTNER_NOT_FOUND', async () => {
    for (const id of ['ptn_01jzzzzzzzzzzzzzzzzzzzzzzz', 'nonsense', '%20']) {
      const answer = await admin(`/partners/${id}`);
      expect(answer.status).toBe(404);
      expect(answer.body.code).toBe('PARTNER_NOT_FOUND');
    }
  });
});

describe('keys and secrets', () => {
  it('when the operator issues a key with chosen scopes, then only its metadata is answered and the key arrives by e-mail', async () => {
    const partner = await onboardPartner();
    const issued = await admin(`/partners/${partner.id}/keys`, { body: { scopes: ['orders:read'] } });
    expect(issued.status).toBe(201);
    expect(issued.body).toEqual({
      id: expect.stringMatching(/^key_/),
      prefix: expect.stringMatching(/^[a-z0-9]{12}$/),
      scopes: ['orders:read'],
      livemode: true,
      createdAt: expect.any(String),
      lastUsedAt: null,
      revokedAt: null,
    });
    const [mail] = await waitForMail(partner.email, 'A new API key was issued');
    const key = apiKeyPattern.exec(mail!.text)![1]!;
    expect(key.split('_')[2]).toBe(issued.body.prefix);
    expect(mail!.text).toMatch(/^Scopes: orders:read$/m);
    const denied = await api('/partner/catalog', withKey(key));
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('INSUFFICIENT_SCOPE');
    expect(denied.body.detail).toContain('catalog:read');
  });

  it('when scopes are empty, repeated or unknown, then 400 naming scopes', async () => {
    const partner = await onboardPartner();
    for (const scopes of [[], ['orders:read', 'orders:read'], ['admin:all']]) {
      const answer = await admin(`/partners/${partner.id}/keys`, { body: { scopes } });
      expect(answer.status).toBe(400);
      expect(answer.body.code).toBe('VALIDATION_ERROR');
      expect(answer.body.errors[0].path).toMatch(/^scopes/);
    }
    // None of the refused requests issued a key: only the approval key exists.
    expect((await admin(`/partners/${partner.id}/keys`)).body.data).toHaveLength(1);
  });

  it('when a key is issued for a pending partner, then 409 INVALID_STATE', async () => {
    const { answer } = await registerPartner();
    const refused = await admin(`/partners/${answer.body.id}/keys`, { body: {} });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('INVALID_STATE');
  });

  it('when the webhook secret is rotated, then a new, different secret is e-mailed', async () => {
    const partner = await onboardPartner();
    const rotated = await admin(`/partners/${partner.id}/webhook-secret/rotate`, { method: 'POST' });
    expect(rotated.status).toBe(200);
    const [mail] = await waitForMail(partner.email, 'Your webhook signing secret was rotated');
    const secret = webhookSecretPattern.exec(mail!.text)![1]!;
    expect(secret).not.toBe(partner.webhookSecret);
    // The e-mail is the only place the secret appears in full (§4).
    expect(rotated.text).not.toContain(secret.slice('whsec_'.length));
    expect(rotated.text).not.toContain('whsec_');
  });

  it('when a key is used, then lastUsedAt is recorded to the minute', async () => {
    const partner = await onboardPartner();
    const token = await portalToken(partner.email, partner.password);
    const keys = async () => (await api('/partner/me', { headers: { authorization: `Bearer ${token}` } })).body.apiKeys as Array<{ lastUsedAt: string | null }>;
    expect((await keys())[0]!.lastUsedAt).toBeNull();
    expect((await api('/partner/catalog?limit=1', withKey(partner.apiKey))).status).toBe(200);
    const answeredAt = Date.now();
    const lastUsedAt = await until(async () => (await keys())[0]!.lastUsedAt ?? undefined, 'lastUsedAt to be recorded', 5_000);
    expect(lastUsedAt).toMatch(/:00\.000Z$/);
    // The minute of the call: not after the answer, and less than a minute (plus the call) before it.
    expect(Date.parse(lastUsedAt)).toBeLessThanOrEqual(answeredAt);
    expect(answeredAt - Date.parse(lastUsedAt)).toBeLessThan(65_000);
  });
});

describe('audit log', () => {
  it('when operators act, then each action is in the audit log with time, action, target and operator', async () => {
    const partner = await onboardPartner();
    expect((await admin(`/partners/${partner.id}/suspend`, { method: 'POST', headers: { 'x-operator': 'ops-bob' } })).status).toBe(200);
    const mine = await until(async () => {
      const log = await admin('/audit?limit=100');
      expect(log.status).toBe(200);
      const entries = log.body.data.filter((e: { target: string }) => e.target === partner.id);
      return entries.length >= 2 ? entries : undefined;
    }, 'both audit entries of the partner');
    expect(mine.map((e: { action: string }) => e.action)).toEqual(['partner.suspended', 'partner.approved']);
    // The actor is the credential (the break-glass ADMIN_TOKEN here); X-Operator is only a note (§10).
    expect(mine[0]).toMatchObject({ operator: 'admin-token', operatorEmail: null, details: { note: 'ops-bob' }, requestId: expect.any(String), createdAt: expect.any(String) });
  });
});

