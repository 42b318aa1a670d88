// Protects the API-key check's test mode (§14) without a backend: a test key passes while its partner is pending and is refused once rejected or suspended, live keys stay approved-only, a key sent with the other mode's marker is unknown, each mode counts against its own rate limit, and the account is the test account.
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey, hashSecret, type KeyCredential } from '@esim/api-keys';
import { scopes, type PartnerStatus } from '@esim/vocabulary';
import { requireApiKey, type ApiKeyAuthDeps } from '../src/auth/apiKeyAuth.js';
import type { RateLimit } from '../src/auth/rateLimits.js';
import { accountOf, partnerDoors } from '../src/routes/partnerDoors.js';

const partnerId = 'ptn_01jz0000000000000000000000';
const live = generateKey(true);
const test = generateKey(false);
let status: PartnerStatus = 'pending';
const counted: string[] = [];
let app: FastifyInstance;

const credentialOf = (key: typeof live): KeyCredential => ({
  keyId: `key_${key.prefix}`,
  partnerId,
  livemode: key.livemode,
  secretHash: hashSecret(key.secret),
  scopes: [...scopes],
  revoked: false,
  partnerStatus: status,
  tier: 'standard',
});
const limitNamed = (name: string) => ({ consume: async () => void counted.push(name), deniedLocally: () => false }) as unknown as RateLimit;

beforeAll(async () => {
  const deps = {
    credentials: { get: (prefix: string) => [live, test].filter((k) => k.prefix === prefix).map(credentialOf)[0] ?? null },
    limit: limitNamed('live'),
    testLimit: limitNamed('test'),
    redis: { set: async () => null },
    namespace: 'unit',
    partners: {},
    logger: { warn: () => undefined },
  } as unknown as ApiKeyAuthDeps;
  const doors = partnerDoors({ apiKey: (scope) => requireApiKey(deps, scope), portalToken: async () => undefined, partners: {} as never });
  app = Fastify();
  app.decorateRequest('account', null);
  const door = doors.apiKey('wallet:read');
  app.get('/partner/wallet', { onRequest: door.onRequest }, async (request) => accountOf(request));
  await app.ready();
});

afterAll(() => app?.close());

const call = async (key: string) => {
  const answer = await app.inject({ method: 'GET', url: '/partner/wallet', headers: { authorization: `Bearer ${key}` } });
  return { status: answer.statusCode, body: answer.json() };
};

describe('requireApiKey in test mode', () => {
  it('when the partner is pending, then a test key acts on the test account under the test limit, and a live key is 403 ACCOUNT_NOT_ACTIVE', async () => {
    status = 'pending';
    counted.length = 0;
    expect(await call(test.key)).toEqual({ status: 200, body: { partnerId: `${partnerId}_test`, livemode: false, tier: 'standard' } });
    expect(counted).toEqual(['test']);
    expect(await call(live.key)).toMatchObject({ status: 403, body: { code: 'ACCOUNT_NOT_ACTIVE' } });
    expect(counted).toEqual(['test', 'live']);
  });

  it('when the partner is approved, then each key acts on its own account and counts against its own limit', async () => {
    status = 'approved';
    counted.length = 0;
    expect((await call(live.key)).body).toEqual({ partnerId, livemode: true, tier: 'standard' });
    expect((await call(test.key)).body).toEqual({ partnerId: `${partnerId}_test`, livemode: false, tier: 'standard' });
    expect(counted).toEqual(['live', 'test']);
  });

  it('when the partner is rejected or suspended, then both keys are 403 ACCOUNT_NOT_ACTIVE', async () => {
    for (const refused of ['rejected', 'suspended'] as const) {
      status = refused;
      expect(await call(test.key)).toMatchObject({ status: 403, body: { code: 'ACCOUNT_NOT_ACTIVE' } });
      expect(await call(live.key)).toMatchObject({ status: 403, body: { code: 'ACCOUNT_NOT_ACTIVE' } });
    }
  });

  it('when a key is sent with the other mode’s marker, then 401 INVALID_API_KEY before any count', async () => {
    status = 'approved';
    counted.length = 0;
    expect(await call(test.key.replace('sk_test_', 'sk_live_'))).toMatchObject({ status: 401, body: { code: 'INVALID_API_KEY' } });
    expect(await call(live.key.replace('sk_live_', 'sk_test_'))).toMatchObject({ status: 401, body: { code: 'INVALID_API_KEY' } });
    expect(counted).toEqual([]);
  });
});
