// Protects the supplier's notification door (contract §13): only a notification signed with SUPPLIER_CALLBACK_SECRET within 5 minutes reaches the orders service; a bad body is 400 once signed; 202/200 follow the orders service's answer; the raw bytes, not a re-serialization, are what is verified.
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ordersV1 } from '@esim/proto';
import { sign } from '@esim/supplier-signature';
import type { FastifyInstance } from 'fastify';
import type { OrdersClient } from '../src/backends.js';
import { createApp } from '../src/http/createApp.js';
import { supplierNotificationRoute } from '../src/routes/supplier/notifications.js';

const secret = 'supplier-callback-secret-for-tests';
const now = 1_800_000_000;
const recorded: Array<Record<string, unknown>> = [];
const seen = new Set<string>();
const orders = {
  recordSupplierNotification: async (request: Record<string, unknown>) => {
    recorded.push(request);
    const duplicate = seen.has(request.id as string);
    seen.add(request.id as string);
    return { duplicate };
  },
} as unknown as OrdersClient;

let app: FastifyInstance;
beforeAll(async () => {
  app = await createApp({
    name: 'public',
    logger: pino({ level: 'silent' }),
    title: 'test',
    description: 'test',
    readiness: [],
    isShuttingDown: () => false,
    securitySchemes: { supplierSignature: { type: 'apiKey', in: 'header', name: 'X-Supplier-Signature' } },
    components: z.registry<{ id: string }>(),
  });
  await app.register(async (scope) => supplierNotificationRoute(scope, { orders, secret, nowSeconds: () => now }));
  await app.register(async (scope) => supplierNotificationRoute(scope, { orders, secret, nowSeconds: () => now, hidden: true }), { prefix: '/api/v1' });
  // A JSON route beside it keeps the usual parser: the raw-body parser is this route's only.
  app.post('/echo', async (request) => ({ body: request.body }));
});
afterAll(() => app.close());

const usage = (id: string, dataUsedMb: number) =>
  JSON.stringify({ id, type: 'bundle.usage', occurredAt: '2026-11-24T20:00:00.000Z', iccid: '8933000000000000017', reference: 'ord_01abc', dataUsedMb });

const post = (body: string, headers: Record<string, string> = {}, url = '/supplier/v1/notifications') =>
  app.inject({ method: 'POST', url, payload: body, headers: { 'content-type': 'application/json', ...headers } });
const signed = (body: string, at = now, key = secret) => ({ 'x-supplier-signature': sign(key, body, at) });

describe('POST /supplier/v1/notifications', () => {
  it('when signed, then it is recorded once: 202 accepted, then 200 duplicate for the same id', async () => {
    const body = usage('ntf_first', 800);
    const first = await post(body, signed(body));
    expect(first.statusCode).toBe(202);
    expect(first.json()).toEqual({ id: 'ntf_first', status: 'accepted' });
    const again = await post(body, signed(body));
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({ id: 'ntf_first', status: 'duplicate' });
    expect(recorded.at(-1)).toMatchObject({
      id: 'ntf_first',
      type: ordersV1.SupplierNotificationType.BUNDLE_USAGE,
      iccid: '8933000000000000017',
      reference: 'ord_01abc',
      dataUsedMb: 800,
    });
  });

  it('when the alias under /api/v1 is used, then it answers the same', async () => {
    const body = JSON.stringify({ id: 'ntf_alias', type: 'esim.installed', occurredAt: '2026-11-24T20:00:00Z', iccid: '8933000000000000017' });
    const response = await post(body, signed(body), '/api/v1/supplier/v1/notifications');
    expect(response.statusCode).toBe(202);
    expect(recorded.at(-1)).toMatchObject({ id: 'ntf_alias', type: ordersV1.SupplierNotificationType.ESIM_INSTALLED, reference: undefined });
  });

  it.each([
    ['missing', () => ({})],
    ['signed with another secret', (body: string) => signed(body, now, 'another-secret-entirely')],
    ['stale (301 s old)', (body: string) => signed(body, now - 301)],
    ['from the future (301 s ahead)', (body: string) => signed(body, now + 301)],
    ['malformed', () => ({ 'x-supplier-signature': 't=abc,v1=zz' })],
    ['for another body', () => signed(usage('ntf_other', 1))],
  ])('when the signature is %s, then 401 UNAUTHENTICATED and nothing is recorded', async (_name, headers) => {
    const before = recorded.length;
    const body = usage('ntf_refused', 10);
    const response = await post(body, headers(body));
    expect(response.statusCode).toBe(401);
    expect(response.headers['content-type']).toContain('application/problem+json');
    expect(response.json()).toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });
    expect(recorded.length).toBe(before);
  });

  it('when an unsigned body is not even JSON, then still 401 (the signature is checked first)', async () => {
    const response = await post('{not json', {});
    expect(response.statusCode).toBe(401);
  });

  it('when the bytes differ from a re-serialization (spaces, key order), then the raw bytes are what is verified', async () => {
    const body = `{ "type": "bundle.expired", "id": "ntf_spaced",  "iccid": "8933000000000000017", "reference": "ord_01abc", "occurredAt": "2026-11-24T20:00:00Z" }`;
    const response = await post(body, signed(body));
    expect(response.statusCode).toBe(202);
    expect(recorded.at(-1)).toMatchObject({ id: 'ntf_spaced', type: ordersV1.SupplierNotificationType.BUNDLE_EXPIRED });
  });

  it.each([
    ['an unknown type', { id: 'ntf_x', type: 'esim.deleted', occurredAt: '2026-11-24T20:00:00Z', iccid: '8933000000000000017' }],
    ['a malformed ICCID', { id: 'ntf_x', type: 'esim.installed', occurredAt: '2026-11-24T20:00:00Z', iccid: '12' }],
    ['usage without reference', { id: 'ntf_x', type: 'bundle.usage', occurredAt: '2026-11-24T20:00:00Z', iccid: '8933000000000000017', dataUsedMb: 1 }],
    ['a negative use', { id: 'ntf_x', type: 'bundle.usage', occurredAt: '2026-11-24T20:00:00Z', iccid: '8933000000000000017', reference: 'ord_1', dataUsedMb: -1 }],
    ['a fractional use', { id: 'ntf_x', type: 'bundle.usage', occurredAt: '2026-11-24T20:00:00Z', iccid: '8933000000000000017', reference: 'ord_1', dataUsedMb: 1.5 }],
    ['no date', { id: 'ntf_x', type: 'esim.installed', occurredAt: 'yesterday', iccid: '8933000000000000017' }],
    ['an empty id', { id: '', type: 'esim.installed', occurredAt: '2026-11-24T20:00:00Z', iccid: '8933000000000000017' }],
  ])('when a signed body has %s, then 400 VALIDATION_ERROR and nothing is recorded', async (_name, payload) => {
    const before = recorded.length;
    const body = JSON.stringify(payload);
    const response = await post(body, signed(body));
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(recorded.length).toBe(before);
  });

  it('when a signed body is not JSON or empty, then 400 and nothing is recorded', async () => {
    const before = recorded.length;
    expect((await post('{not json', signed('{not json'))).json()).toMatchObject({ status: 400, code: 'MALFORMED_JSON' });
    expect((await post('', signed(''))).json()).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    expect(recorded.length).toBe(before);
  });

  it('when another JSON route is called, then its usual parser still applies', async () => {
    const response = await app.inject({ method: 'POST', url: '/echo', payload: '{"a":1}', headers: { 'content-type': 'application/json' } });
    expect(response.json()).toEqual({ body: { a: 1 } });
  });

  it('documents the route under its own tag, with the signature scheme, and hides the alias', async () => {
    const document = app.swagger() as { paths: Record<string, { post?: { tags: string[]; security: unknown; responses: Record<string, unknown> } }> };
    const operation = document.paths['/supplier/v1/notifications']?.post;
    expect(operation?.tags).toEqual(['Supplier']);
    expect(operation?.security).toEqual([{ supplierSignature: [] }]);
    expect(Object.keys(operation?.responses ?? {}).sort()).toEqual(['200', '202', '400', '401', '413', '415', '503']);
    expect(document.paths['/api/v1/supplier/v1/notifications']).toBeUndefined();
  });
});
