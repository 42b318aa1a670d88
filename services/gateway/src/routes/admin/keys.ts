import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { auditContextOf } from '../../auth/adminAuth.js';
import { problems } from '../../http/schemas.js';
import { apiKeyView, toApiKeyView } from '../../views/partners.js';
import { scopes } from '@esim/vocabulary';
import type { PartnersClient } from '../../backends.js';

const params = z.object({ id: z.string().min(1) });
const tags = ['Keys and secrets'];

/** API keys and the webhook signing secret of a partner (§4, §10). */
export function adminKeyRoutes(app: FastifyInstance, { partners }: { partners: PartnersClient }): void {
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.get(
    '/partners/:id/keys',
    { schema: { tags, summary: 'Keys metadata', params, response: { 200: z.object({ data: z.array(apiKeyView) }), ...problems(401, 404, 503) } } },
    async (request) => ({ data: (await partners.listApiKeys({ partnerId: request.params.id })).apiKeys.map(toApiKeyView) }),
  );

  typed.post(
    '/partners/:id/keys',
    {
      schema: {
        tags,
        summary: 'Issue a further API key',
        description: 'The key is e-mailed to the partner; the response holds metadata only. Scopes default to all four.',
        params,
        body: z
          .strictObject({
            scopes: z
              .array(z.enum(scopes))
              .min(1, 'must name at least one scope')
              .refine((list) => new Set(list).size === list.length, 'must not repeat a scope')
              .optional(),
          })
          .nullish(),
        response: { 201: apiKeyView, ...problems(400, 401, 404, 409, 413, 415, 503) },
      },
    },
    async (request, reply) => {
      const key = await partners.issueApiKey({
        partnerId: request.params.id,
        scopes: request.body?.scopes ?? [...scopes],
        audit: auditContextOf(request),
      });
      return reply.code(201).send(toApiKeyView(key));
    },
  );

  typed.post(
    '/partners/:id/keys/:keyId/revoke',
    {
      schema: {
        tags,
        summary: 'Revoke a key',
        description: 'Effective on every gateway replica within 2 seconds. Revoking a revoked key answers it unchanged.',
        params: params.extend({ keyId: z.string().min(1) }),
        response: { 200: apiKeyView, ...problems(401, 404, 503) },
      },
    },
    async (request) =>
      toApiKeyView(await partners.revokeApiKey({ partnerId: request.params.id, keyId: request.params.keyId, audit: auditContextOf(request) })),
  );

  typed.post(
    '/partners/:id/webhook-secret/rotate',
    {
      schema: {
        tags,
        summary: 'Rotate the webhook signing secret',
        description:
          'The new secret is e-mailed to the partner and signs every delivery from now on; the old one keeps signing beside it (`webhook-signature: v1,<new> v1,<old>`, `X-SERVICE-Signature-Previous`) for `overlapHours` (0–72, default 24; 0 stops it at once).',
        params,
        body: z.strictObject({ overlapHours: z.number().int().min(0).max(72).optional() }).nullish(),
        response: { 200: z.object({ rotatedAt: z.string() }), ...problems(400, 401, 404, 409, 413, 415, 503) },
      },
    },
    async (request) => ({
      rotatedAt: (await partners.rotateWebhookSecret({ id: request.params.id, audit: auditContextOf(request), overlapHours: request.body?.overlapHours })).rotatedAt,
    }),
  );
}
