// Protects the partners service's side of test mode (§14): test keys (mode, limit, status rules, revocation), the test webhook URL and secret, and the test-data deletion request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseKey, secretMatches } from '@esim/api-keys';
import { mailRecord, open, webhookSecretRecord } from '@esim/crypto';
import type { partnersV1 } from '@esim/proto';
import { scopes } from '@esim/vocabulary';
import { createTestEnv, type PartnersClient, type TestEnv } from './support/testEnv.js';

let env: TestEnv;
let client: PartnersClient;
const audit = { operator: 'ops@example.com', requestId: 'req_test' };

beforeAll(async () => {
  env = await createTestEnv();
  ({ client } = await env.start());
});

afterAll(() => env?.cleanup());

let registered = 0;
async function pendingPartner(): Promise<partnersV1.Partner> {
  registered += 1;
  return client.register({ name: `Sandbox ${registered}`, email: `sandbox${registered}@example.com`, company: 'Travel Co', password: 'correct horse battery' });
}

async function verified(partner: partnersV1.Partner): Promise<partnersV1.Partner> {
  const rows = await env.query<{ payload: { data: { sealedValues: Record<string, string> } } }>(
    `SELECT payload FROM partners.outbox WHERE subject = 'mail.requested' AND payload->'data'->>'to' = $1 AND payload->'data'->'sealedValues' ? 'verifyToken' ORDER BY seq DESC LIMIT 1`,
    [partner.email],
  );
  const token = open(env.dataKey, rows[0]!.payload.data.sealedValues.verifyToken!, mailRecord(partner.email));
  return client.verifyEmail({ token });
}

const outboxData = async (subject: string, field: string, value: string) =>
  (
    await env.query<{ payload: { data: Record<string, unknown> } }>(
      `SELECT payload FROM partners.outbox WHERE subject = $1 AND payload->'data'->>$2 = $3 ORDER BY seq`,
      [subject, field, value],
    )
  ).map((row) => row.payload.data);

describe('test keys', () => {
  it('when a pending partner issues a test key, then it is sk_test_ with all four scopes, stored hashed with livemode false, and its credential says test mode', async () => {
    const partner = await pendingPartner();
    const issued = await client.issueTestKey({ partnerId: partner.id, requestId: 'req_1' });
    const parts = parseKey(issued.key);
    expect(parts).toMatchObject({ livemode: false, prefix: issued.apiKey!.prefix });
    expect(issued.apiKey).toMatchObject({ test: true, scopes: [...scopes] });
    const credential = await client.lookupApiKey({ prefix: parts!.prefix });
    expect(credential).toMatchObject({ partnerId: partner.id, test: true, partnerStatus: 'pending', tier: 'standard', revoked: false });
    expect(secretMatches(parts!.secret, credential.secretHash)).toBe(true);
    // Only the hash is stored, and no e-mail carries the key.
    const [row] = await env.query<{ secret_hash: string; livemode: boolean }>('SELECT secret_hash, livemode FROM partners.api_keys WHERE id = $1', [issued.apiKey!.id]);
    expect(row).toEqual({ secret_hash: credential.secretHash, livemode: false });
    expect(await outboxData('mail.requested', 'to', partner.email)).not.toContainEqual(expect.objectContaining({ template: 'api_key_issued' }));
  });

  it('when GetPartner is asked, then test keys are listed apart from live keys and ListApiKeys (operators) lists live keys only', async () => {
    const partner = await verified(await pendingPartner());
    const issued = await client.issueTestKey({ partnerId: partner.id, requestId: 'req_2' });
    await client.approvePartner({ id: partner.id, tier: 'premium', audit });
    const detail = await client.getPartner({ id: partner.id });
    expect(detail.apiKeys.map((k) => k.test)).toEqual([false]);
    expect(detail.testKeys.map((k) => k.id)).toEqual([issued.apiKey!.id]);
    expect((await client.listApiKeys({ partnerId: partner.id })).apiKeys.map((k) => k.test)).toEqual([false]);
  });

  it('when a partner is approved or rejected, then its test keys are evicted from the gateway caches (their status and tier change)', async () => {
    const approved = await verified(await pendingPartner());
    const approvedKey = await client.issueTestKey({ partnerId: approved.id, requestId: 'req_3' });
    await client.approvePartner({ id: approved.id, tier: 'enterprise', audit });
    expect(await outboxData('partners.credentials.changed', 'partnerId', approved.id)).toContainEqual({ partnerId: approved.id, prefixes: [approvedKey.apiKey!.prefix] });
    expect(await client.lookupApiKey({ prefix: approvedKey.apiKey!.prefix })).toMatchObject({ partnerStatus: 'approved', tier: 'enterprise', test: true });

    const rejected = await pendingPartner();
    const rejectedKey = await client.issueTestKey({ partnerId: rejected.id, requestId: 'req_4' });
    await client.rejectPartner({ id: rejected.id, reason: 'Incomplete', audit });
    expect(await outboxData('partners.credentials.changed', 'partnerId', rejected.id)).toEqual([{ partnerId: rejected.id, prefixes: [rejectedKey.apiKey!.prefix] }]);
  });

  it('when 5 test keys are active, then a 6th is INVALID_STATE; after one is revoked, one more can be issued', async () => {
    const partner = await pendingPartner();
    const keys = [];
    for (let i = 0; i < 5; i += 1) keys.push(await client.issueTestKey({ partnerId: partner.id, requestId: `req_${i}` }));
    await expect(client.issueTestKey({ partnerId: partner.id, requestId: 'req_6' })).rejects.toMatchObject({ code: 'INVALID_STATE' });
    await client.revokeTestKey({ partnerId: partner.id, keyId: keys[0]!.apiKey!.id });
    await expect(client.issueTestKey({ partnerId: partner.id, requestId: 'req_7' })).resolves.toMatchObject({ apiKey: { test: true } });
    expect((await client.getPartner({ id: partner.id })).testKeys.filter((k) => !k.revokedAt)).toHaveLength(5);
  });

  it('when 8 test keys are asked for at once, then exactly 5 are issued (the count is taken under the partner lock)', async () => {
    const partner = await pendingPartner();
    const results = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => client.issueTestKey({ partnerId: partner.id, requestId: `req_${i}` })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(5);
    for (const r of results.filter((r) => r.status === 'rejected')) expect(r.reason).toMatchObject({ code: 'INVALID_STATE' });
  });

  it('when a test key is revoked, then it is marked revoked, its prefix is evicted, twice is harmless, and a live key id is NOT_FOUND', async () => {
    const partner = await verified(await pendingPartner());
    const issued = await client.issueTestKey({ partnerId: partner.id, requestId: 'req_r' });
    const revoked = await client.revokeTestKey({ partnerId: partner.id, keyId: issued.apiKey!.id });
    expect(revoked.revokedAt).toBeTruthy();
    expect(await client.revokeTestKey({ partnerId: partner.id, keyId: issued.apiKey!.id })).toEqual(revoked);
    expect(await client.lookupApiKey({ prefix: issued.apiKey!.prefix })).toMatchObject({ revoked: true });
    expect(await outboxData('partners.credentials.changed', 'partnerId', partner.id)).toContainEqual({ partnerId: partner.id, prefixes: [issued.apiKey!.prefix] });
    await client.approvePartner({ id: partner.id, tier: '', audit });
    const live = (await client.getPartner({ id: partner.id })).apiKeys[0]!;
    await expect(client.revokeTestKey({ partnerId: partner.id, keyId: live.id })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await client.getPartner({ id: partner.id })).apiKeys[0]!.revokedAt).toBeUndefined();
  });

  it('when the partner is rejected or suspended, then issuing, revoking, the test secret and test-data deletion are ACCOUNT_NOT_ACTIVE', async () => {
    const rejected = await pendingPartner();
    const key = await client.issueTestKey({ partnerId: rejected.id, requestId: 'req_x' });
    await client.rejectPartner({ id: rejected.id, reason: 'No', audit });
    const suspended = await verified(await pendingPartner());
    await client.approvePartner({ id: suspended.id, tier: '', audit });
    await client.suspendPartner({ id: suspended.id, audit });
    for (const partner of [rejected, suspended]) {
      await expect(client.issueTestKey({ partnerId: partner.id })).rejects.toMatchObject({ code: 'ACCOUNT_NOT_ACTIVE' });
      await expect(client.rotateTestWebhookSecret({ partnerId: partner.id })).rejects.toMatchObject({ code: 'ACCOUNT_NOT_ACTIVE' });
      await expect(client.requestTestDataDeletion({ partnerId: partner.id })).rejects.toMatchObject({ code: 'ACCOUNT_NOT_ACTIVE' });
    }
    await expect(client.revokeTestKey({ partnerId: rejected.id, keyId: key.apiKey!.id })).rejects.toMatchObject({ code: 'ACCOUNT_NOT_ACTIVE' });
    expect(await client.lookupApiKey({ prefix: key.apiKey!.prefix })).toMatchObject({ partnerStatus: 'rejected' });
  });
});

describe('test webhooks', () => {
  it('when a test webhook URL is set and cleared, then the partner shows it, the change is audited, e-mailed and announced for the test account only', async () => {
    const partner = await pendingPartner();
    const testAccount = `${partner.id}_test`;
    const updated = await client.updatePartner({ id: partner.id, testWebhookUrl: 'https://reseller.example/test-hooks' });
    expect(updated).toMatchObject({ testWebhookUrl: 'https://reseller.example/test-hooks' });
    expect(updated.webhookUrl).toBeUndefined();
    expect(await outboxData('partners.webhook_endpoint.changed', 'partnerId', testAccount)).toEqual([{ partnerId: testAccount }]);
    expect(await outboxData('partners.webhook_endpoint.changed', 'partnerId', partner.id)).toEqual([]);
    const mails = await outboxData('mail.requested', 'to', partner.email);
    expect(mails.at(-1)).toMatchObject({ template: 'webhook_url_changed', values: { oldUrl: '(none) (test mode)', newUrl: 'https://reseller.example/test-hooks (test mode)' } });
    const entries = await env.query<{ action: string; details: unknown }>(`SELECT action, details FROM partners.audit_log WHERE target = $1 ORDER BY created_at`, [partner.id]);
    expect(entries).toContainEqual({ action: 'partner.test_webhook_url_changed', details: { oldUrl: null, newUrl: 'https://reseller.example/test-hooks' } });

    const cleared = await client.updatePartner({ id: partner.id, clearTestWebhookUrl: true });
    expect(cleared.testWebhookUrl).toBeUndefined();
    expect(await outboxData('partners.webhook_endpoint.changed', 'partnerId', testAccount)).toHaveLength(2);
  });

  it('when a test secret is created twice, then each replaces the last, is sealed for the test account, and GetWebhookEndpoint answers the test URL and secret for ptn_X_test', async () => {
    const partner = await verified(await pendingPartner());
    const testAccount = `${partner.id}_test`;
    await client.updatePartner({ id: partner.id, webhookUrl: 'https://reseller.example/live', testWebhookUrl: 'https://reseller.example/test' });
    const first = await client.rotateTestWebhookSecret({ partnerId: partner.id });
    const second = await client.rotateTestWebhookSecret({ partnerId: partner.id });
    expect(first.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(second.secret).not.toBe(first.secret);

    const test = await client.getWebhookEndpoint({ partnerId: testAccount });
    expect(test).toMatchObject({ url: 'https://reseller.example/test', status: 'pending', email: partner.email });
    expect(open(env.dataKey, test.sealedSecret, webhookSecretRecord(testAccount))).toBe(second.secret);
    // Bound to the test account: it does not open as the live secret.
    expect(() => open(env.dataKey, test.sealedSecret, webhookSecretRecord(partner.id))).toThrow();
    expect(test.previousSealedSecret).toBeUndefined();

    await client.approvePartner({ id: partner.id, tier: '', audit });
    const live = await client.getWebhookEndpoint({ partnerId: partner.id });
    expect(live.url).toBe('https://reseller.example/live');
    expect(open(env.dataKey, live.sealedSecret, webhookSecretRecord(partner.id))).not.toBe(second.secret);
    expect(await outboxData('partners.webhook_endpoint.changed', 'partnerId', testAccount)).toHaveLength(3);
  });

  it('when GetWebhookEndpoint is asked for the test account of an unknown partner, then PARTNER_NOT_FOUND', async () => {
    await expect(client.getWebhookEndpoint({ partnerId: 'ptn_01jz0000000000000000000000_test' })).rejects.toMatchObject({ code: 'PARTNER_NOT_FOUND' });
  });
});

describe('test data deletion', () => {
  it('when a pending partner asks to delete its test data, then partners.test_data.delete_requested names its test account, and its test keys are kept', async () => {
    const partner = await pendingPartner();
    const key = await client.issueTestKey({ partnerId: partner.id, requestId: 'req_d' });
    const answer = await client.requestTestDataDeletion({ partnerId: partner.id, requestId: 'req_d' });
    expect(answer.accountId).toBe(`${partner.id}_test`);
    expect(await outboxData('partners.test_data.delete_requested', 'accountId', answer.accountId)).toEqual([{ accountId: answer.accountId, requestedAt: answer.requestedAt }]);
    expect(await client.lookupApiKey({ prefix: key.apiKey!.prefix })).toMatchObject({ revoked: false });
  });
});
