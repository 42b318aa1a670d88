// Protects §3/§4 against the attacks of #24, as a black-box client: an address cannot be squatted into approval, a password can be reset and changed (ending older sessions), the webhook URL cannot be redirected silently, logins cannot be raced past their budget, and portal routes and test webhooks are rate-limited.
import { describe, expect, it } from 'vitest';
import {
  admin,
  api,
  call,
  platform,
  expectProblem,
  freshSourceAddress,
  mailbox,
  mailedToken,
  onboardPartner,
  portalToken,
  registerPartner,
  uniqueEmail,
  until,
  verifyEmailOf,
  waitForMail,
  withToken,
} from './support/client.js';

describe('e-mail verification (§4)', () => {
  it('when an application is not verified, then the operator sees emailVerified false and approval is 409 EMAIL_NOT_VERIFIED; after the link, it is approved', async () => {
    const { application, answer } = await registerPartner();
    expect(answer.body.emailVerified).toBe(false);
    const detail = await admin(`/partners/${answer.body.id}`);
    expect(detail.body.emailVerified).toBe(false);
    expectProblem(await admin(`/partners/${answer.body.id}/approve`, { body: {} }), 409, 'EMAIL_NOT_VERIFIED');

    const token = await mailedToken(application.email, 'verify-email');
    expect(token).toMatch(/^[A-Za-z0-9_-]{32,}$/);
    const verified = await api('/partner/verify-email', { body: { token }, localAddress: freshSourceAddress() });
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ id: answer.body.id, status: 'pending', emailVerified: true });
    expect((await admin(`/partners/${answer.body.id}`)).body.emailVerified).toBe(true);
    expect((await admin(`/partners/${answer.body.id}/approve`, { body: {} })).status).toBe(200);
  });

  it('when the e-mailed link is opened, then the portal serves its page at that path (the page posts the token)', async () => {
    const { application } = await registerPartner();
    const [mail] = await waitForMail(application.email, 'Your application was received');
    const link = /^(\S*\/verify-email\?token=[A-Za-z0-9_-]{32,})$/m.exec(mail!.text)![1]!;
    const path = new URL(link).pathname + new URL(link).search;
    const page = await call(platform.publicUrl, path);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect((await call(platform.publicUrl, '/portal/reset-password?token=x')).status).toBe(200);
  });

  it('when a token is used twice, unknown or malformed, then 400 VALIDATION_ERROR naming token', async () => {
    const { application } = await registerPartner();
    const token = await mailedToken(application.email, 'verify-email');
    expect((await api('/partner/verify-email', { body: { token } })).status).toBe(200);
    for (const bad of [token, 'A'.repeat(43), 'not a token']) {
      const answer = await api('/partner/verify-email', { body: { token: bad } });
      expectProblem(answer, 400, 'VALIDATION_ERROR');
      expect(answer.body.errors.map((e: { path: string }) => e.path)).toContain('token');
    }
  });

  it('when a resend is asked, then 202 whoever asks, and only the unverified applicant gets a new link', async () => {
    const { application } = await registerPartner();
    const unknown = uniqueEmail('nobody');
    for (const email of [application.email, unknown]) expect((await api('/partner/verify-email/resend', { body: { email } })).status).toBe(202);
    await mailedToken(application.email, 'verify-email', { count: 2 });
    expect(await mailbox(unknown)).toEqual([]);
  });
});

describe('passwords (§4)', () => {
  it('when a partner resets its password, then 202 for any address, the link works once, the old password and every older portal token stop, and the change is mailed and audited', async () => {
    const partner = await onboardPartner();
    const before = await portalToken(partner.email, partner.password);
    expect((await api('/partner/password-reset', { body: { email: uniqueEmail('ghost') } })).status).toBe(202);
    expect((await api('/partner/password-reset', { body: { email: partner.email.toUpperCase() } })).status).toBe(202);
    const token = await mailedToken(partner.email, 'reset-password');

    const confirmed = await api('/partner/password-reset/confirm', { body: { token, password: 'a-new-long-password' } });
    expect(confirmed.status).toBe(204);
    expect(confirmed.text).toBe('');
    expectProblem(await api('/partner/password-reset/confirm', { body: { token, password: 'another-long-password' } }), 400, 'VALIDATION_ERROR');

    expectProblem(await api('/partner/me', withToken(before)), 401, 'INVALID_TOKEN');
    expectProblem(await api('/partner/login', { body: { email: partner.email, password: partner.password } }), 401, 'INVALID_CREDENTIALS');
    const after = await portalToken(partner.email, 'a-new-long-password');
    expect((await api('/partner/me', withToken(after))).status).toBe(200);
    await waitForMail(partner.email, 'Your password was changed');
    const entries = await until(async () => {
      const log = await admin('/audit?limit=100');
      const found = log.body.data.filter((e: { target: string; action: string }) => e.target === partner.id && e.action === 'partner.password_reset');
      return found.length > 0 ? found : undefined;
    }, 'the reset in the audit log');
    expect(entries[0].operator).toBe(`partner:${partner.id}`);
  });

  it('when a partner changes its password, then a wrong current one is 401 INVALID_CREDENTIALS, the right one is 204 and ends older sessions', async () => {
    const partner = await onboardPartner();
    const token = await portalToken(partner.email, partner.password);
    const wrong = await api('/partner/me/password', { body: { currentPassword: 'not-my-password', newPassword: 'a-new-long-password' }, ...withToken(token) });
    expectProblem(wrong, 401, 'INVALID_CREDENTIALS');
    const short = await api('/partner/me/password', { body: { currentPassword: partner.password, newPassword: 'short' }, ...withToken(token) });
    expectProblem(short, 400, 'VALIDATION_ERROR');
    const changed = await api('/partner/me/password', { body: { currentPassword: partner.password, newPassword: 'a-new-long-password' }, ...withToken(token) });
    expect(changed.status).toBe(204);
    expectProblem(await api('/partner/me', withToken(token)), 401, 'INVALID_TOKEN');
    expect((await api('/partner/me', withToken(await portalToken(partner.email, 'a-new-long-password')))).status).toBe(200);
    await waitForMail(partner.email, 'Your password was changed');
  });
});

describe('webhook URL changes (§4)', () => {
  it('when a portal session points the webhook stream elsewhere, then the change is audited with old and new URL and e-mailed to the partner at once', async () => {
    const partner = await onboardPartner();
    const token = await portalToken(partner.email, partner.password);
    const changed = await api('/partner/me', { method: 'PATCH', body: { webhookUrl: 'https://attacker.example/collect' }, ...withToken(token) });
    expect(changed.status).toBe(200);
    const [mail] = await waitForMail(partner.email, 'Your webhook URL was changed');
    expect(mail!.text).toMatch(/^New URL: https:\/\/attacker\.example\/collect$/m);
    const entry = await until(async () => {
      const log = await admin('/audit?limit=100');
      return log.body.data.find((e: { target: string; action: string }) => e.target === partner.id && e.action === 'partner.webhook_url_changed');
    }, 'the change in the audit log');
    expect(entry).toMatchObject({ operator: `partner:${partner.id}`, details: { oldUrl: null, newUrl: 'https://attacker.example/collect' } });

    expect((await admin(`/partners/${partner.id}`, { method: 'PATCH', body: { webhookUrl: null } })).status).toBe(200);
    await waitForMail(partner.email, 'Your webhook URL was changed', { count: 2 });
  });
});

describe('login throttling (§3)', () => {
  it('when 60 wrong-password logins for one e-mail race from 60 addresses, then at most 10 are evaluated and the rest are 429 with Retry-After', async () => {
    const { application } = await registerPartner();
    const answers = await Promise.all(
      Array.from({ length: 60 }, () => api('/partner/login', { body: { email: application.email, password: 'wrong-password-guess' }, localAddress: freshSourceAddress() })),
    );
    const evaluated = answers.filter((a) => a.status === 401).length;
    const limited = answers.filter((a) => a.status === 429);
    expect(evaluated).toBeLessThanOrEqual(10);
    expect(evaluated + limited.length + answers.filter((a) => a.status === 503).length).toBe(60);
    expect(limited.length).toBeGreaterThanOrEqual(50 - answers.filter((a) => a.status === 503).length);
    expect(Number(limited[0]!.headers['retry-after'])).toBeGreaterThan(0);
    // The right password is refused too while the e-mail is locked out.
    expect((await api('/partner/login', { body: { email: application.email, password: application.password } })).status).toBe(429);
  });

  it('when one address fails logins for 100 different e-mails, then the 101st attempt from it is 429, and another address is unaffected', async () => {
    const address = freshSourceAddress();
    // A few at a time, so the partners service's bounded hashing is busy but rarely full; a 503 is not a failure and is not counted.
    let failed = 0;
    while (failed < 100) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(4, 100 - failed) }, () =>
          api('/partner/login', { body: { email: uniqueEmail('spray'), password: 'wrong-password-guess' }, localAddress: address }),
        ),
      );
      for (const answer of batch) expect([401, 503]).toContain(answer.status);
      failed += batch.filter((answer) => answer.status === 401).length;
    }
    expectProblem(await api('/partner/login', { body: { email: uniqueEmail('spray'), password: 'x' }, localAddress: address }), 429, 'RATE_LIMITED');
    expect((await api('/partner/login', { body: { email: uniqueEmail('spray'), password: 'x' }, localAddress: freshSourceAddress() })).status).toBe(401);
  }, 180_000);

  it('when one address asks for 21 password resets within the hour, then the 21st is 429', async () => {
    const address = freshSourceAddress();
    for (let i = 0; i < 20; i += 1) expect((await api('/partner/password-reset', { body: { email: uniqueEmail('r') }, localAddress: address })).status).toBe(202);
    expectProblem(await api('/partner/password-reset', { body: { email: uniqueEmail('r') }, localAddress: address }), 429, 'RATE_LIMITED');
  });
});

describe('portal rate limits (§3)', () => {
  it('when a partner sends 11 test webhooks in a minute, then the 11th is 429 RATE_LIMITED', async () => {
    const partner = await onboardPartner();
    const token = await portalToken(partner.email, partner.password);
    const answers = [];
    for (let i = 0; i < 11; i += 1) answers.push(await api('/partner/me/webhook/test', { method: 'POST', ...withToken(token) }));
    expect(answers.slice(0, 10).map((a) => a.status)).toEqual(Array(10).fill(202));
    expectProblem(answers[10]!, 429, 'RATE_LIMITED');
  });

  it('when a partner sends test webhooks through both the account route and an endpoint\'s test route, then they share the 10 a minute', async () => {
    const partner = await onboardPartner();
    const token = await portalToken(partner.email, partner.password);
    const created = await api('/partner/me/webhook-endpoints', { method: 'POST', body: { url: 'http://127.0.0.1:9/hook' }, ...withToken(token) });
    expect(created.status).toBe(201);
    const answers = [];
    for (let i = 0; i < 5; i += 1) answers.push(await api('/partner/me/webhook/test', { method: 'POST', ...withToken(token) }));
    for (let i = 0; i < 6; i += 1) answers.push(await api(`/partner/me/webhook-endpoints/${created.body.id}/test`, { method: 'POST', ...withToken(token) }));
    expect(answers.slice(0, 10).map((a) => a.status)).toEqual(Array(10).fill(202));
    expectProblem(answers[10]!, 429, 'RATE_LIMITED');
  });

  it('when a portal route answers, then it carries RateLimit-* headers; past RATE_LIMIT_PER_PORTAL in a window, 429 with Retry-After', async () => {
    const partner = await onboardPartner();
    const token = await portalToken(partner.email, partner.password);
    const first = await api('/partner/me', withToken(token));
    expect(first.headers['ratelimit-limit']).toBe('20');
    const burst = await Promise.all(Array.from({ length: 30 }, () => api('/partner/me', withToken(token))));
    const limited = burst.filter((a) => a.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(limited[0]!.headers['retry-after']).toBeDefined();
  });
});

describe('re-registration', () => {
  it('when an address has an unverified application younger than 24 hours, then registering it again is still 409', async () => {
    const { application } = await registerPartner();
    const again = await api('/partner/register', { body: { ...application, name: 'Someone else' }, localAddress: freshSourceAddress() });
    expectProblem(again, 409, 'EMAIL_ALREADY_REGISTERED');
    await verifyEmailOf(application.email);
  });
});
