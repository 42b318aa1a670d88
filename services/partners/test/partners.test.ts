// Protects the partners service over gRPC: the account and key use cases, the key format it issues, and typed audit details.
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
async function registerPartner(): Promise<partnersV1.Partner> {
  registered += 1;
  return client.register({ name: `Partner ${registered}`, email: `Partner${registered}@Example.com`, company: 'Travel Co', password: 'correct horse battery' });
}

async function approvedPartner(): Promise<partnersV1.Partner> {
  const partner = await registerPartner();
  await client.verifyEmail({ token: await mailedSecret(partner.email, 'verifyToken') });
  return client.approvePartner({ id: partner.id, tier: 'premium', audit });
}

/** A sealed value of the newest mail to `email` that carries it, opened with the data key as the mailer would. */
async function mailedSecret(email: string, name: string): Promise<string> {
  const rows = await env.query<{ payload: { data: { to: string; sealedValues: Record<string, string> } } }>(
    `SELECT payload FROM partners.outbox WHERE subject = 'mail.requested' AND payload->'data'->>'to' = $1 AND payload->'data'->'sealedValues' ? $2
     ORDER BY seq DESC LIMIT 1`,
    [email, name],
  );
  return open(env.dataKey, rows[0]!.payload.data.sealedValues[name]!, mailRecord(email));
}

/** The API key the newest mail to `email` carries. */
const mailedKey = (email: string) => mailedSecret(email, 'apiKey');

describe('accounts', () => {
  it('when an application is empty, then it is VALIDATION_ERROR naming each missing field, and nothing is stored', async () => {
    const error = await client.register({}).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'VALIDATION_ERROR', errors: ['name', 'email', 'company', 'password'].map((path) => ({ path, message: expect.any(String) })) });
    expect(await env.query('SELECT id FROM partners.partners WHERE email = $1', [''])).toEqual([]);
  });

  it('when a partner registers, then it is pending at the standard tier with its e-mail lower-cased', async () => {
    const partner = await registerPartner();
    expect(partner).toMatchObject({ status: 'pending', tier: 'standard', email: `partner${registered}@example.com` });
    expect(partner.id).toMatch(/^ptn_/);
  });

  it('when a partner is approved with a tier, then it is approved at that tier with one key holding every scope', async () => {
    const partner = await approvedPartner();
    expect(partner).toMatchObject({ status: 'approved', tier: 'premium' });
    const detail = await client.getPartner({ id: partner.id });
    expect(detail.partner).toEqual(partner);
    expect(detail.apiKeys).toHaveLength(1);
    expect(detail.apiKeys[0]!.scopes).toEqual([...scopes]);
  });

  it('when approving with a tier outside the vocabulary, then VALIDATION_ERROR on tier and the partner stays pending', async () => {
    const partner = await registerPartner();
    await expect(client.approvePartner({ id: partner.id, tier: 'gold', audit })).rejects.toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ path: 'tier' }] });
    expect((await client.getPartner({ id: partner.id })).partner?.status).toBe('pending');
  });

  it('when Register receives an empty message, then VALIDATION_ERROR naming every missing field, not INTERNAL', async () => {
    // {} encodes to zero bytes on the wire: what any client reaching the port can send (issue #17).
    await expect(client.register({})).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ path: 'name' }, { path: 'email' }, { path: 'company' }, { path: 'password' }],
    });
    await expect(client.register({ name: 'A', email: 'not-an-email', company: 'B', password: 'short' })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ path: 'email' }, { path: 'password' }],
    });
    expect(await env.query(`SELECT 1 FROM partners.partners WHERE email = 'not-an-email'`)).toEqual([]);
  });

  it('when a partner or its keys are asked for by an unknown id, then PARTNER_NOT_FOUND', async () => {
    await expect(client.getPartner({ id: 'ptn_unknown' })).rejects.toMatchObject({ code: 'PARTNER_NOT_FOUND' });
    await expect(client.listApiKeys({ partnerId: 'ptn_unknown' })).rejects.toMatchObject({ code: 'PARTNER_NOT_FOUND' });
  });

  it('when listing by status a page at a time, then each page is newest first and total counts the whole status', async () => {
    const first = await approvedPartner();
    const second = await approvedPartner();
    const page1 = await client.listPartners({ status: 'approved', page: { page: 1, limit: 1 } });
    const page2 = await client.listPartners({ status: 'approved', page: { page: 2, limit: 1 } });
    expect(page1.partners.map((p) => p.id)).toEqual([second.id]);
    expect(page2.partners.map((p) => p.id)).toEqual([first.id]);
    expect(page1.total).toBeGreaterThanOrEqual(2);
    expect(page1.total).toBe(page2.total);
    expect((await client.listPartners({ status: '' })).total).toBeGreaterThan(page1.total);
  });

  it('when listing by a status outside the vocabulary, then VALIDATION_ERROR on status', async () => {
    await expect(client.listPartners({ status: 'archived' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ path: 'status' }] });
  });
});

describe('webhook endpoint changes', () => {
  const changes = async (partnerId: string) =>
    (
      await env.query<{ payload: { data: unknown } }>(
        `SELECT payload FROM partners.outbox WHERE subject = 'partners.webhook_endpoint.changed' AND payload->'data'->>'partnerId' = $1 ORDER BY seq`,
        [partnerId],
      )
    ).map((row) => row.payload.data);

  it('when a partner is approved, its secret rotated or its URL changed, then each writes partners.webhook_endpoint.changed with the partner id only; an unchanged URL or a tier change does not', async () => {
    const partner = await approvedPartner();
    expect(await changes(partner.id)).toEqual([{ partnerId: partner.id }]);
    await client.rotateWebhookSecret({ id: partner.id, audit });
    expect(await changes(partner.id)).toHaveLength(2);
    await client.updatePartner({ id: partner.id, webhookUrl: 'https://hooks.example.com/a' });
    expect(await changes(partner.id)).toHaveLength(3);
    await client.updatePartner({ id: partner.id, webhookUrl: 'https://hooks.example.com/a' });
    await client.updatePartner({ id: partner.id, tier: 'standard', audit });
    expect(await changes(partner.id)).toHaveLength(3);
    await client.updatePartner({ id: partner.id, clearWebhookUrl: true });
    expect(await changes(partner.id)).toEqual(Array.from({ length: 4 }, () => ({ partnerId: partner.id })));
  });
});

describe('webhook secret rotation with an overlap (§9)', () => {
  // Sealed for the partner (associated data webhook:<partnerId>, #24): every test here seals for partners it made.
  const secretOf = async (sealed: string | undefined) => (sealed ? open(env.dataKey, sealed, webhookSecretRecord(sealedFor)) : undefined);
  let sealedFor = '';

  it('when the secret is rotated, then the new one signs and the old one is handed out beside it until the overlap ends (24 h by default); the answer carries the new one sealed', async () => {
    const partner = await approvedPartner();
    sealedFor = partner.id;
    const before = await client.getWebhookEndpoint({ partnerId: partner.id });
    expect(before.previousSealedSecret).toBeUndefined();
    expect(before.email).toBe(partner.email);
    const rotated = await client.rotateWebhookSecret({ id: partner.id, audit });
    const after = await client.getWebhookEndpoint({ partnerId: partner.id });
    expect(await secretOf(after.sealedSecret)).toBe(await secretOf(rotated.sealedSecret));
    expect(await secretOf(after.previousSealedSecret)).toBe(await secretOf(before.sealedSecret));
    const hours = (Date.parse(after.previousSecretExpiresAt!) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);
  });

  it('when the overlap is 0, then the old secret stops at once; outside 0–72 it is VALIDATION_ERROR naming overlapHours and nothing changes', async () => {
    const partner = await approvedPartner();
    sealedFor = partner.id;
    const before = await client.getWebhookEndpoint({ partnerId: partner.id });
    await expect(client.rotateWebhookSecret({ id: partner.id, audit, overlapHours: 73 })).rejects.toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ path: 'overlapHours' }] });
    expect(await secretOf((await client.getWebhookEndpoint({ partnerId: partner.id })).sealedSecret)).toBe(await secretOf(before.sealedSecret));
    await client.rotateWebhookSecret({ id: partner.id, audit, overlapHours: 0 });
    const after = await client.getWebhookEndpoint({ partnerId: partner.id });
    expect(after.previousSealedSecret).toBeUndefined();
    expect(await secretOf(after.sealedSecret)).not.toBe(await secretOf(before.sealedSecret));
  });
});

describe('keys', () => {
  it('when a key is issued, then the mailed key has the shared format and the credential the gateway gets verifies it', async () => {
    const partner = await approvedPartner();
    const issued = await client.issueApiKey({ partnerId: partner.id, scopes: ['catalog:read'], audit });
    const parts = parseKey(await mailedKey(partner.email));
    expect(parts?.prefix).toBe(issued.prefix);
    const credential = await client.lookupApiKey({ prefix: issued.prefix });
    expect(credential).toMatchObject({ keyId: issued.id, partnerId: partner.id, scopes: ['catalog:read'], revoked: false, partnerStatus: 'approved', tier: 'premium' });
    expect(secretMatches(parts!.secret, credential.secretHash)).toBe(true);
    expect(secretMatches(`${parts!.secret.slice(1)}x`, credential.secretHash)).toBe(false);
  });

  for (const [label, requested, path] of [
    ['an unknown scope', ['catalog:read', 'orders:delete'], 'scopes.1'],
    ['a repeated scope', ['orders:read', 'orders:read'], 'scopes.1'],
    ['no scope', [], 'scopes'],
  ] as const) {
    it(`when a key is asked for with ${label}, then VALIDATION_ERROR on ${path} and no key is stored`, async () => {
      const partner = await approvedPartner();
      await expect(client.issueApiKey({ partnerId: partner.id, scopes: [...requested], audit })).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
        errors: [{ path }],
      });
      expect((await client.listApiKeys({ partnerId: partner.id })).apiKeys).toHaveLength(1);
    });
  }

  it('when a key is revoked twice, then both answers show it revoked and the credential says so', async () => {
    const partner = await approvedPartner();
    const [key] = (await client.listApiKeys({ partnerId: partner.id })).apiKeys;
    const first = await client.revokeApiKey({ partnerId: partner.id, keyId: key!.id, audit });
    const second = await client.revokeApiKey({ partnerId: partner.id, keyId: key!.id, audit });
    expect(first.revokedAt).toBeDefined();
    expect(second.revokedAt).toBe(first.revokedAt);
    expect((await client.lookupApiKey({ prefix: key!.prefix })).revoked).toBe(true);
  });

  it('when a key is touched, then lastUsedAt is set to the minute', async () => {
    const partner = await approvedPartner();
    const [key] = (await client.listApiKeys({ partnerId: partner.id })).apiKeys;
    expect(key!.lastUsedAt).toBeUndefined();
    await client.touchApiKey({ keyId: key!.id });
    const [touched] = (await client.listApiKeys({ partnerId: partner.id })).apiKeys;
    expect(new Date(touched!.lastUsedAt!).getUTCSeconds()).toBe(0);
  });
});

describe('audit log', () => {
  const detailsOf = (entry: partnersV1.AuditEntry | undefined) => Object.fromEntries(Object.entries(entry?.details ?? {}).map(([name, d]) => [name, d.value]));

  it('when operators act, then each entry carries its facts as typed values: text, list of names, and null as no value', async () => {
    const partner = await approvedPartner();
    const issued = await client.issueApiKey({ partnerId: partner.id, scopes: ['orders:read', 'wallet:read'], audit });
    await client.updatePartner({ id: partner.id, clearWebhookUrl: true, audit });
    const { entries } = await client.listAuditEntries({ page: { page: 1, limit: 100 } });
    const mine = entries.filter((e) => e.target === partner.id);
    expect(mine.map((e) => e.action)).toEqual(['partner.updated', 'api_key.issued', 'partner.approved']);
    expect(mine[0]).toMatchObject({ operator: audit.operator, requestId: audit.requestId });
    expect(detailsOf(mine[0])).toEqual({ webhookUrl: { case: undefined } });
    expect(detailsOf(mine[1])).toEqual({
      keyId: { case: 'text', value: issued.id },
      prefix: { case: 'text', value: issued.prefix },
      scopes: { case: 'texts', value: expect.objectContaining({ values: ['orders:read', 'wallet:read'] }) },
    });
    expect(detailsOf(mine[2])).toMatchObject({ tier: { case: 'text', value: 'premium' } });
  });

  it('when another service recorded numbers, flags and nested values, then numbers and flags stay typed and nesting becomes dotted names', async () => {
    await env.query(
      `INSERT INTO partners.audit_log (id, action, target, operator, request_id, details) VALUES ('aud_nested', 'plan.updated', 'plan_x', '', '', $1)`,
      [JSON.stringify({ floorPrice: 2005, active: false, limits: { daily: 3, tags: [1, 'a'] } })],
    );
    const { entries } = await client.listAuditEntries({ page: { page: 1, limit: 100 } });
    expect(detailsOf(entries.find((e) => e.id === 'aud_nested'))).toEqual({
      floorPrice: { case: 'number', value: 2005 },
      active: { case: 'flag', value: false },
      'limits.daily': { case: 'number', value: 3 },
      'limits.tags.0': { case: 'number', value: 1 },
      'limits.tags.1': { case: 'text', value: 'a' },
    });
  });
});
