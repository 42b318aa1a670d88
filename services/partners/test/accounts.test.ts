// Protects §4's account rules in the partners service (#24): a proved e-mail before approval, an unproved address given back after 24 h, single-use reset links, a password change that ends older sessions, audited and mailed webhook URL changes, bounded password hashing, and operator accounts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseOperatorToken, secretMatches } from '@esim/api-keys';
import { mailRecord, open, seal, webhookSecretRecord } from '@esim/crypto';
import { createPool } from '@esim/postgres';
import { resealWebhookSecrets } from '../src/domain/resealSecrets.js';
import { HashingPool } from '../src/domain/hashingPool.js';
import { hashPassword } from '../src/domain/passwords.js';
import { createTestEnv, type PartnersClient, type TestEnv } from './support/testEnv.js';

let env: TestEnv;
let client: PartnersClient;
const audit = { operator: 'admin-token', requestId: 'req_accounts', note: 'ops-alice' };
const password = 'correct horse battery';

beforeAll(async () => {
  env = await createTestEnv();
  ({ client } = await env.start());
});

afterAll(() => env?.cleanup());

let counter = 0;
const newEmail = () => `accounts-${Date.now()}-${(counter += 1)}@example.com`;

async function mails(email: string): Promise<Array<{ template: string; values: Record<string, string>; sealedValues: Record<string, string> }>> {
  const rows = await env.query<{ payload: { data: { template: string; values: Record<string, string>; sealedValues: Record<string, string> } } }>(
    `SELECT payload FROM partners.outbox WHERE subject = 'mail.requested' AND payload->'data'->>'to' = $1 ORDER BY seq`,
    [email],
  );
  return rows.map((r) => r.payload.data);
}

async function mailedSecret(email: string, name: string): Promise<string> {
  const sealed = (await mails(email)).reverse().find((m) => m.sealedValues[name])?.sealedValues[name];
  if (!sealed) throw new Error(`no mail to ${email} carries ${name}`);
  return open(env.dataKey, sealed, mailRecord(email));
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as { code: string },
  );

describe('e-mail verification', () => {
  it('when an applicant registers, then the mail carries a single-use token; approval waits for it with EMAIL_NOT_VERIFIED', async () => {
    const email = newEmail();
    const partner = await client.register({ name: 'V', email, company: 'V Co', password });
    expect(partner.emailVerified).toBe(false);
    const token = await mailedSecret(email, 'verifyToken');
    expect(token).toMatch(/^[A-Za-z0-9_-]{32,}$/);
    expect(JSON.stringify(await env.query('SELECT * FROM partners.account_tokens WHERE partner_id = $1', [partner.id]))).not.toContain(token);

    expect(await failure(client.approvePartner({ id: partner.id, audit }))).toMatchObject({ code: 'EMAIL_NOT_VERIFIED' });
    expect((await client.verifyEmail({ token })).emailVerified).toBe(true);
    expect(await failure(client.verifyEmail({ token }))).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ path: 'token' }] });
    expect((await client.approvePartner({ id: partner.id, audit })).status).toBe('approved');
  });

  it('when a token is unknown, malformed or expired, then VALIDATION_ERROR naming token', async () => {
    for (const token of ['', 'short', 'x'.repeat(43)]) expect(await failure(client.verifyEmail({ token }))).toMatchObject({ code: 'VALIDATION_ERROR' });
    const email = newEmail();
    const partner = await client.register({ name: 'E', email, company: 'E Co', password });
    await env.query(`UPDATE partners.account_tokens SET expires_at = now() - interval '1 second' WHERE partner_id = $1`, [partner.id]);
    expect(await failure(client.verifyEmail({ token: await mailedSecret(email, 'verifyToken') }))).toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('when a verification is resent, then only an unverified pending application gets a new link, and unknown addresses get nothing', async () => {
    const email = newEmail();
    await client.register({ name: 'R', email, company: 'R Co', password });
    await client.resendVerification({ email: email.toUpperCase() });
    expect((await mails(email)).map((m) => m.template)).toEqual(['application_received', 'email_verification']);
    await client.verifyEmail({ token: await mailedSecret(email, 'verifyToken') });
    await client.resendVerification({ email });
    await client.resendVerification({ email: newEmail() });
    expect((await mails(email)).map((m) => m.template)).toEqual(['application_received', 'email_verification']);
  });

  it('when an address was squatted and never verified within 24 h, then registering it again replaces the application (201); within 24 h it is still 409', async () => {
    const email = newEmail();
    const squatter = await client.register({ name: 'Squatter', email, company: 'Evil', password });
    expect(await failure(client.register({ name: 'Owner', email, company: 'Victim', password }))).toMatchObject({ code: 'EMAIL_ALREADY_REGISTERED' });
    await env.query(`UPDATE partners.partners SET created_at = now() - interval '25 hours' WHERE id = $1`, [squatter.id]);
    const owner = await client.register({ name: 'Owner', email, company: 'Victim', password });
    expect(owner.id).not.toBe(squatter.id);
    expect(await failure(client.getPartner({ id: squatter.id }))).toMatchObject({ code: 'PARTNER_NOT_FOUND' });
  });

  it('when an old application was verified, then its address is never given away', async () => {
    const email = newEmail();
    const first = await client.register({ name: 'Owner', email, company: 'Owner Co', password });
    await client.verifyEmail({ token: await mailedSecret(email, 'verifyToken') });
    await env.query(`UPDATE partners.partners SET created_at = now() - interval '25 hours' WHERE id = $1`, [first.id]);
    expect(await failure(client.register({ name: 'Other', email, company: 'Other', password }))).toMatchObject({ code: 'EMAIL_ALREADY_REGISTERED' });
  });
});

describe('passwords', () => {
  it('when a reset is confirmed, then the new password works, the old does not, sessions end, the link is spent, and it is mailed and audited', async () => {
    const email = newEmail();
    const partner = await client.register({ name: 'P', email, company: 'P Co', password });
    await client.requestPasswordReset({ email });
    const token = await mailedSecret(email, 'resetToken');
    const reset = await client.confirmPasswordReset({ token, password: 'a brand new password' });
    expect(reset.sessionVersion).toBe(partner.sessionVersion + 1);
    expect(reset.emailVerified).toBe(true);
    expect((await client.login({ email, password: 'a brand new password' })).id).toBe(partner.id);
    expect(await failure(client.login({ email, password }))).toMatchObject({ code: 'INVALID_CREDENTIALS' });
    expect(await failure(client.confirmPasswordReset({ token, password: 'another new password' }))).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect((await mails(email)).map((m) => m.template)).toContain('password_changed');
    const entries = await env.query<{ action: string; operator: string }>('SELECT action, operator FROM partners.audit_log WHERE target = $1', [partner.id]);
    expect(entries).toContainEqual({ action: 'partner.password_reset', operator: `partner:${partner.id}` });
  });

  it('when a reset link is older than 30 minutes, then it is refused', async () => {
    const email = newEmail();
    const partner = await client.register({ name: 'P', email, company: 'P Co', password });
    await client.requestPasswordReset({ email });
    const token = await mailedSecret(email, 'resetToken');
    const [row] = await env.query<{ minutes: number }>(
      `SELECT extract(epoch FROM expires_at - created_at)::int / 60 AS minutes FROM partners.account_tokens WHERE partner_id = $1 AND purpose = 'reset_password'`,
      [partner.id],
    );
    expect(row!.minutes).toBe(30);
    await env.query(`UPDATE partners.account_tokens SET expires_at = now() - interval '1 second' WHERE partner_id = $1`, [partner.id]);
    expect(await failure(client.confirmPasswordReset({ token, password: 'a brand new password' }))).toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('when a reset is asked for an unknown address, then nothing is mailed and nothing fails', async () => {
    const email = newEmail();
    await client.requestPasswordReset({ email });
    expect(await mails(email)).toEqual([]);
  });

  it('when a partner changes its password, then a wrong current one is INVALID_CREDENTIALS and the right one raises the session version', async () => {
    const email = newEmail();
    const partner = await client.register({ name: 'C', email, company: 'C Co', password });
    expect(await failure(client.changePassword({ partnerId: partner.id, currentPassword: 'wrong password!', newPassword: 'a brand new password' }))).toMatchObject({
      code: 'INVALID_CREDENTIALS',
    });
    const changed = await client.changePassword({ partnerId: partner.id, currentPassword: password, newPassword: 'a brand new password', requestId: 'req_x' });
    expect(changed.sessionVersion).toBe(partner.sessionVersion + 1);
    expect((await client.login({ email, password: 'a brand new password' })).sessionVersion).toBe(changed.sessionVersion);
    expect((await mails(email)).map((m) => m.template)).toContain('password_changed');
  });

  it('when a hash was made at a lower cost, then login upgrades it', async () => {
    const email = newEmail();
    const partner = await client.register({ name: 'U', email, company: 'U Co', password });
    // A real hash at half today's cost, as an older release stored it.
    await env.query('UPDATE partners.partners SET password_hash = $2 WHERE id = $1', [partner.id, await hashPassword(new HashingPool(1, 0), password, 512)]);
    await client.login({ email, password });
    const [row] = await env.query<{ password_hash: string }>('SELECT password_hash FROM partners.partners WHERE id = $1', [partner.id]);
    expect(row!.password_hash).toMatch(/^scrypt\$1024\$8\$1\$/);
  });
});

describe('bounded hashing', () => {
  it('when the pool is busy and its queue full, then further work is refused at once with UNAVAILABLE, and the bound is never exceeded', async () => {
    const pool = new HashingPool(2, 1);
    let running = 0;
    let most = 0;
    const releases: Array<() => void> = [];
    const work = () =>
      pool.run(async () => {
        running += 1;
        most = Math.max(most, running);
        await new Promise<void>((resolve) => releases.push(resolve));
        running -= 1;
      });
    const admitted = [work(), work(), work()];
    await expect(work()).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    while (releases.length > 0 || running > 0) {
      releases.shift()?.();
      await new Promise((r) => setImmediate(r));
    }
    await Promise.all(admitted);
    expect(most).toBe(2);
  });
});

describe('webhook URL changes', () => {
  it('when the partner or an operator changes the URL, then the change is audited with both URLs and the actor, and mailed to the partner', async () => {
    const email = newEmail();
    const partner = await client.register({ name: 'W', email, company: 'W Co', password });
    await client.updatePartner({ id: partner.id, webhookUrl: 'https://attacker.example/hook' });
    await client.updatePartner({ id: partner.id, webhookUrl: 'https://owner.example/hook', audit });
    const entries = await env.query<{ action: string; operator: string; details: Record<string, unknown> }>(
      `SELECT action, operator, details FROM partners.audit_log WHERE target = $1 AND action = 'partner.webhook_url_changed' ORDER BY created_at`,
      [partner.id],
    );
    expect(entries).toEqual([
      { action: 'partner.webhook_url_changed', operator: `partner:${partner.id}`, details: { oldUrl: null, newUrl: 'https://attacker.example/hook' } },
      {
        action: 'partner.webhook_url_changed',
        operator: 'admin-token',
        details: { oldUrl: 'https://attacker.example/hook', newUrl: 'https://owner.example/hook', note: 'ops-alice' },
      },
    ]);
    const changed = (await mails(email)).filter((m) => m.template === 'webhook_url_changed');
    expect(changed.map((m) => m.values.newUrl)).toEqual(['https://attacker.example/hook', 'https://owner.example/hook']);
  });
});

describe('operators', () => {
  it('when an operator is created, then its token is mailed once, only its hash is stored, and role changes and revocation are audited', async () => {
    const email = newEmail();
    const operator = await client.createOperator({ email: email.toUpperCase(), name: 'Olga', role: 'support', audit });
    expect(operator).toMatchObject({ id: expect.stringMatching(/^opr_/), email, name: 'Olga', role: 'support' });
    const token = await mailedSecret(email, 'operatorToken');
    const parts = parseOperatorToken(token)!;
    expect(parts.prefix).toMatch(/^[a-z0-9]{12}$/);
    const credential = await client.lookupOperatorToken({ prefix: parts.prefix });
    expect(credential).toMatchObject({ operatorId: operator.id, email, role: 'support', revoked: false });
    expect(secretMatches(parts.secret, credential.secretHash)).toBe(true);
    expect(JSON.stringify(await env.query('SELECT * FROM partners.operators WHERE id = $1', [operator.id]))).not.toContain(parts.secret);

    expect((await client.updateOperatorRole({ id: operator.id, role: 'finance', audit })).role).toBe('finance');
    expect((await client.revokeOperator({ id: operator.id, audit })).revokedAt).toBeTruthy();
    expect((await client.lookupOperatorToken({ prefix: parts.prefix })).revoked).toBe(true);
    const actions = await env.query<{ action: string }>('SELECT action FROM partners.audit_log WHERE target = $1 ORDER BY created_at', [operator.id]);
    expect(actions.map((a) => a.action)).toEqual(['operator.created', 'operator.role_changed', 'operator.revoked']);
    expect((await client.listOperators({})).operators.map((o) => o.id)).toContain(operator.id);
  });

  it('when the role or e-mail is not valid, then VALIDATION_ERROR naming it', async () => {
    expect(await failure(client.createOperator({ email: 'nope', name: 'X', role: 'root', audit }))).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ path: 'email' }, { path: 'role' }],
    });
  });
});

describe('sealed secrets at rest (#24)', () => {
  it('when a webhook secret was sealed without its record (v1), then the start-up migration re-seals it bound to its partner, once', async () => {
    const email = newEmail();
    const partner = await client.register({ name: 'S', email, company: 'S Co', password });
    await env.query('UPDATE partners.partners SET webhook_secret_sealed = $2 WHERE id = $1', [partner.id, seal(env.dataKey, 'whsec_legacy')]);
    const pool = createPool(env.databaseUrl, { max: 1, applicationName: 'reseal-test' });
    try {
      const deps = { pool, dataKey: env.dataKey, passwordCost: 1024, hashing: new HashingPool(1, 0) };
      expect(await resealWebhookSecrets(deps)).toBeGreaterThanOrEqual(1);
      const [row] = await env.query<{ webhook_secret_sealed: string }>('SELECT webhook_secret_sealed FROM partners.partners WHERE id = $1', [partner.id]);
      expect(row!.webhook_secret_sealed).toMatch(/^v2\./);
      expect(open(env.dataKey, row!.webhook_secret_sealed, webhookSecretRecord(partner.id))).toBe('whsec_legacy');
      expect(() => open(env.dataKey, row!.webhook_secret_sealed, webhookSecretRecord('ptn_other'))).toThrow();
      expect(await resealWebhookSecrets(deps)).toBe(0);
    } finally {
      await pool.end();
    }
  });
});

describe('password hashing cost', () => {
  it('when PASSWORD_HASH_COST is unset in production, then scrypt runs at OWASP’s N = 2^17; elsewhere at 2^15', async () => {
    const { readConfig } = await import('../src/config.js');
    const DATA_ENCRYPTION_KEY = Buffer.alloc(32, 1).toString('base64');
    expect(readConfig({ NODE_ENV: 'production', DATA_ENCRYPTION_KEY, DATABASE_URL: 'postgres://u@h/db' }).PASSWORD_HASH_COST).toBe(131072);
    expect(readConfig({ NODE_ENV: 'test', DATA_ENCRYPTION_KEY }).PASSWORD_HASH_COST).toBe(32768);
  });
});
