import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { portalPartnerOf } from '../../auth/portalAuth.js';
import { problems } from '../../http/schemas.js';
import { partnerView, partnerWithKeysView, toApiKeyView, toPartnerView } from '../../views/partners.js';
import { webhookUrlSchema } from '../../views/webhookUrl.js';
import type { RouteDeps } from '../deps.js';

const portalSecurity = [{ portalToken: [] }];

/** GET and PATCH /partner/me: the portal's "limited UI" (§4), with the portal JWT. */
export function meRoutes(app: FastifyInstance, deps: RouteDeps): void {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  const requirePortal = deps.tokens.require();

  typed.get(
    '/partner/me',
    {
      schema: {
        tags: ['Portal'],
        summary: 'Your account and API key metadata',
        security: portalSecurity,
        response: { 200: partnerWithKeysView, ...problems(401, 404) },
      },
      onRequest: requirePortal,
    },
    async (request) => {
      const detail = await deps.partners.getPartner({ id: portalPartnerOf(request) });
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
        body: z.strictObject({ webhookUrl: webhookUrlSchema(deps.config.WEBHOOK_ALLOW_INSECURE_URLS).nullable() }),
        response: { 200: partnerView, ...problems(400, 401, 404, 413, 415) },
      },
      onRequest: requirePortal,
    },
    async (request) => {
      const { webhookUrl } = request.body;
      const partner = await deps.partners.updatePartner({
        id: portalPartnerOf(request),
        webhookUrl: webhookUrl ?? undefined,
        clearWebhookUrl: webhookUrl === null,
      });
      return toPartnerView(partner);
    },
  );
}
