// Protects the portal door's test mode (§14) without a backend: ?livemode=false acts on the test account and lets a pending partner in, live stays approved-only, a bad value is 400, and every portal route gains the parameter in its schema while API-key routes do not.
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '@esim/errors';
import type { PartnersClient } from '../src/backends.js';
import { partnerDoors } from '../src/routes/partnerDoors.js';

const partnerId = 'ptn_01jz0000000000000000000000';
let status = 'pending';
let app: FastifyInstance;
const routes = new Map<string, unknown>();

beforeAll(async () => {
  app = Fastify();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.decorateRequest('account', null);
  app.setErrorHandler((error, _request, reply) => {
    if (error instanceof AppError) return reply.code(error.status).send({ code: error.code });
    const validation = (error as { validation?: unknown }).validation;
    return reply.code(validation ? 400 : 500).send({ code: validation ? 'VALIDATION_ERROR' : 'INTERNAL' });
  });
  const partners = { getPartner: async () => ({ partner: { id: partnerId, status, tier: 'premium' }, apiKeys: [], testKeys: [] }) } as unknown as PartnersClient;
  const doors = partnerDoors({
    apiKey: () => async () => undefined,
    portalToken: async (request) => {
      request.portalPartnerId = partnerId;
    },
    partners,
  });
  app.addHook('onRoute', doors.onRoute);
  // After the door's hook: the schema each route is validated and documented with.
  app.addHook('onRoute', (route) => void routes.set(route.url, route.schema?.querystring));
  const typed = app.withTypeProvider<ZodTypeProvider>();
  for (const door of doors.both('wallet:read')) {
    typed.get(`${door.prefix}/paged`, { onRequest: door.onRequest, schema: { querystring: z.strictObject({ page: z.coerce.number().int().optional() }) } }, async (request) => ({
      account: request.account,
      query: request.query,
    }));
    typed.get(`${door.prefix}/plain`, { onRequest: door.onRequest }, async (request) => ({ account: request.account }));
  }
  await app.ready();
});

afterAll(() => app?.close());

const get = async (url: string) => {
  const answer = await app.inject({ method: 'GET', url });
  return { status: answer.statusCode, body: answer.json() };
};

describe('the portal door in test mode', () => {
  it('when a pending partner asks with ?livemode=false, then it acts on ptn_X_test in test mode at its tier; without it, 403 ACCOUNT_NOT_ACTIVE', async () => {
    status = 'pending';
    for (const path of ['/partner/me/paged', '/partner/me/plain']) {
      expect(await get(`${path}?livemode=false`)).toMatchObject({ status: 200, body: { account: { partnerId: `${partnerId}_test`, livemode: false, tier: 'premium' } } });
      expect(await get(path)).toEqual({ status: 403, body: { code: 'ACCOUNT_NOT_ACTIVE' } });
      expect(await get(`${path}?livemode=true`)).toEqual({ status: 403, body: { code: 'ACCOUNT_NOT_ACTIVE' } });
    }
    expect((await get('/partner/me/paged?livemode=false&page=2')).body.query).toEqual({ livemode: 'false', page: 2 });
  });

  it('when an approved partner asks without livemode or with true, then the live account; with false, the test account', async () => {
    status = 'approved';
    expect((await get('/partner/me/plain')).body.account).toEqual({ partnerId, livemode: true, tier: 'premium' });
    expect((await get('/partner/me/plain?livemode=true')).body.account).toEqual({ partnerId, livemode: true, tier: 'premium' });
    expect((await get('/partner/me/plain?livemode=false')).body.account).toEqual({ partnerId: `${partnerId}_test`, livemode: false, tier: 'premium' });
  });

  it('when the partner is rejected or suspended, then both modes are 403 ACCOUNT_NOT_ACTIVE', async () => {
    for (const refused of ['rejected', 'suspended']) {
      status = refused;
      expect(await get('/partner/me/plain?livemode=false')).toEqual({ status: 403, body: { code: 'ACCOUNT_NOT_ACTIVE' } });
      expect(await get('/partner/me/plain')).toEqual({ status: 403, body: { code: 'ACCOUNT_NOT_ACTIVE' } });
    }
  });

  it('when livemode is neither true nor false, or the route would not know it, then 400 VALIDATION_ERROR', async () => {
    status = 'approved';
    expect(await get('/partner/me/plain?livemode=maybe')).toEqual({ status: 400, body: { code: 'VALIDATION_ERROR' } });
    expect(await get('/partner/me/plain?livemode=false&livemode=false')).toEqual({ status: 400, body: { code: 'VALIDATION_ERROR' } });
    // Strict schemas stay strict: another unknown parameter is still refused.
    expect((await get('/partner/me/paged?livemode=false&colour=red')).status).toBe(400);
  });

  it('when routes are registered, then portal routes gain the livemode parameter in their schema and API-key routes do not', () => {
    const keysOf = (url: string) => Object.keys((routes.get(url) as z.ZodObject | undefined)?.shape ?? {}).sort();
    expect(keysOf('/partner/me/paged')).toEqual(['livemode', 'page']);
    expect(keysOf('/partner/me/plain')).toEqual(['livemode']);
    expect(keysOf('/partner/paged')).toEqual(['page']);
    expect(routes.get('/partner/plain')).toBeUndefined();
  });
});
