import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { portalPartnerOf } from '../../auth/portalAuth.js';
import type { PartnersClient } from '../../backends.js';
import { problems } from '../../http/schemas.js';
import { partnerView, partnerWithKeysView, toApiKeyView, toPartnerView } from '../../views/partners.js';
import { webhookUrlSchema } from '../../views/webhookUrl.js';

export interface MeRouteDeps {
  partners: PartnersClient;
  /** The portal token check of auth/portalAuth. */
  portalToken: (request: FastifyRequest) => Promise<void>;
  allowInsecureWebhookUrls: boolean;
}

const portalSecurity = [{ portalToken: [] }];

/** GET and PATCH /partner/me: the portal's "limited UI" (§4), with the portal JWT. */
export function meRoutes(app: FastifyInstance, { partners, portalToken: requirePortal, allowInsecureWebhookUrls }: MeRouteDeps): void {
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.get(
    '/partner/me',
    {
      schema: {
        tags: ['Portal'],
        summary: 'Your account and API key metadata',
        security: portalSecurity,
        response: { 200: partnerWithKeysView, ...problems(401, 404, 503) },
      },
      onRequest: requirePortal,
    },
    async (request) => {
      const detail = await partners.getPartner({ id: portalPartnerOf(request) });
      return { ...toPartnerView(detail.partner!), apiKeys: detail.apiKeys.map(toApiKeyView) };
    },
  );

  typed.patch(
    '/partner/me',
    {
      schema: {
        tags: ['Portal'],
        summary: 'Set or clear your webhook URL',
        security: portalSecurity,
        body: z.strictObject({ webhookUrl: webhookUrlSchema(allowInsecureWebhookUrls).nullable() }),
        response: { 200: partnerView, ...problems(400, 401, 404, 413, 415, 503) },
      },
      onRequest: requirePortal,
    },
    async (request) => {
      const { webhookUrl } = request.body;
      const partner = await partners.updatePartner({
        id: portalPartnerOf(request),
        webhookUrl: webhookUrl ?? undefined,
        clearWebhookUrl: webhookUrl === null,
      });
      return toPartnerView(partner);
    },
  );
}
