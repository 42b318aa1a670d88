import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { portalPartnerOf } from '../../auth/portalAuth.js';
import type { PartnersClient } from '../../backends.js';
import { component } from '../../http/components.js';
import { problems } from '../../http/schemas.js';
import { apiKeyView, toApiKeyView } from '../../views/partners.js';
import { AppError } from '@esim/errors';
import { isId } from '@esim/ids';

export interface TestModeRouteDeps {
  partners: PartnersClient;
  /** The portal token check of auth/portalAuth. */
  portalToken: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
}

const issuedTestKey = component(
  z.object({
    key: z.string().describe('sk_test_<prefix>_<secret>: shown in this answer only; store it now'),
    id: z.string(),
    prefix: z.string(),
    scopes: apiKeyView.shape.scopes,
    createdAt: z.string(),
  }),
  'IssuedTestKey',
  'public',
);
const testWebhookSecret = component(
  z.object({ secret: z.string().describe('whsec_…: your test signing secret, shown this once; it replaces the previous one at once') }),
  'TestWebhookSecret',
  'public',
);
const testDataDeletion = component(
  z.object({
    accountId: z.string().describe('Your test account (ptn_…_test), whose data is being deleted'),
    requestedAt: z.string(),
  }),
  'TestDataDeletion',
  'public',
);

const tags = ['Test mode'];
const portalSecurity = [{ portalToken: [] }];
const whileOpen = 'Open while your application is pending (so you integrate before approval); a rejected or suspended account gets 403 ACCOUNT_NOT_ACTIVE.';

/**
 * The portal's test-mode calls (§14), with the portal JWT: test keys, the
 * test webhook signing secret, and wiping test data. The partners service
 * decides who may (pending and approved partners); these only translate.
 */
export function testModeRoutes(app: FastifyInstance, { partners, portalToken }: TestModeRouteDeps): void {
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.post(
    '/partner/me/test-keys',
    {
      schema: {
        tags,
        summary: 'Create a test key',
        description: `A test key (\`sk_test_…\`, all four scopes) acts on your test account: its own wallet, orders and eSIMs, never live data. The key is in this answer only; at most 5 can be active (one more: 409 INVALID_STATE, revoke one first). ${whileOpen}`,
        security: portalSecurity,
        response: { 201: issuedTestKey, ...problems(401, 403, 404, 409, 429, 503) },
      },
      onRequest: portalToken,
    },
    async (request, reply) => {
      const issued = await partners.issueTestKey({ partnerId: portalPartnerOf(request), requestId: request.id });
      const { id, prefix, scopes, createdAt } = toApiKeyView(issued.apiKey!);
      return reply.code(201).send({ key: issued.key, id, prefix, scopes, createdAt });
    },
  );

  typed.post(
    '/partner/me/test-keys/:keyId/revoke',
    {
      schema: {
        tags,
        summary: 'Revoke a test key',
        description: `Effective on every gateway replica within 2 seconds. Revoking a revoked key answers it unchanged; a live key's id is 404 (operators revoke those). ${whileOpen}`,
        security: portalSecurity,
        params: z.object({ keyId: z.string() }),
        response: { 200: apiKeyView, ...problems(401, 403, 404, 429, 503) },
      },
      onRequest: portalToken,
    },
    async (request) => {
      const { keyId } = request.params;
      // An id that cannot name a key is unknown (§3: 404), without asking the partners service.
      if (!isId('key', keyId)) throw new AppError('NOT_FOUND', `No test key ${keyId.slice(0, 64)}.`);
      return toApiKeyView(await partners.revokeTestKey({ partnerId: portalPartnerOf(request), keyId, audit: { requestId: request.id } }));
    },
  );

  typed.post(
    '/partner/me/test-webhook-secret',
    {
      schema: {
        tags,
        summary: 'Create or replace your test webhook signing secret',
        description: `Test events (sent to \`testWebhookUrl\`) are signed with this secret, never with the live one. Each call replaces the previous secret at once. ${whileOpen}`,
        security: portalSecurity,
        response: { 200: testWebhookSecret, ...problems(401, 403, 404, 429, 503) },
      },
      onRequest: portalToken,
    },
    async (request) => {
      const { secret } = await partners.rotateTestWebhookSecret({ partnerId: portalPartnerOf(request), requestId: request.id });
      return { secret };
    },
  );

  typed.post(
    '/partner/me/test-data/delete',
    {
      schema: {
        tags,
        summary: 'Delete all your test data',
        description: `Your test wallet, ledger, orders, eSIMs, events and deliveries are deleted within a minute; live data is never touched. Test keys and your test webhook settings are kept. ${whileOpen}`,
        security: portalSecurity,
        response: { 202: testDataDeletion, ...problems(401, 403, 404, 429, 503) },
      },
      onRequest: portalToken,
    },
    async (request, reply) => {
      const deletion = await partners.requestTestDataDeletion({ partnerId: portalPartnerOf(request), requestId: request.id });
      return reply.code(202).send({ accountId: deletion.accountId, requestedAt: deletion.requestedAt });
    },
  );
}
