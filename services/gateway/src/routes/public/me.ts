import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { LoginThrottle } from '../../auth/loginThrottle.js';
import { portalPartnerOf } from '../../auth/portalAuth.js';
import type { PartnersClient } from '../../backends.js';
import { problems } from '../../http/schemas.js';
import { partnerView, partnerWithKeysView, toApiKeyView, toPartnerView } from '../../views/partners.js';
import { webhookUrlSchema } from '../../views/webhookUrl.js';
import { passwordRule } from './account.js';

export interface MeRouteDeps {
  partners: PartnersClient;
  /** The portal token check of auth/portalAuth. */
  portalToken: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  allowInsecureWebhookUrls: boolean;
  /** The failed-login budgets: a wrong current password on a change counts as a failed login (§4). */
  throttle?: LoginThrottle;
}

const portalSecurity = [{ portalToken: [] }];

/** GET and PATCH /partner/me: the portal's "limited UI" (§4), with the portal JWT. */
export function meRoutes(app: FastifyInstance, { partners, portalToken: requirePortal, allowInsecureWebhookUrls, throttle }: MeRouteDeps): void {
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.get(
    '/partner/me',
    {
      schema: {
        tags: ['Portal'],
        summary: 'Your account and API key metadata',
        security: portalSecurity,
        response: { 200: partnerWithKeysView, ...problems(401, 404, 429, 503) },
      },
      onRequest: requirePortal,
    },
    async (request) => {
      const detail = request.portalPartner ?? (await partners.getPartner({ id: portalPartnerOf(request) }));
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
        description: 'The change is written to the audit log (old and new URL) and e-mailed to you at once.',
        response: { 200: partnerView, ...problems(400, 401, 404, 413, 415, 429, 503) },
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

  typed.post(
    '/partner/me/password',
    {
      schema: {
        tags: ['Portal'],
        summary: 'Change your password',
        description:
          'A wrong current password is 401 INVALID_CREDENTIALS and counts as a failed login. Every portal token issued before the change stops working (401 INVALID_TOKEN), this one included: log in again. The change is e-mailed and audited.',
        security: portalSecurity,
        body: z.strictObject({ currentPassword: z.string().min(1).max(1024), newPassword: passwordRule }),
        response: { 204: z.null().describe('Password changed'), ...problems(400, 401, 404, 413, 415, 429, 503) },
      },
      onRequest: requirePortal,
    },
    async (request, reply) => {
      const partnerId = portalPartnerOf(request);
      const change = () =>
        partners.changePassword({ partnerId, currentPassword: request.body.currentPassword, newPassword: request.body.newPassword, requestId: request.id });
      const email = request.portalPartner?.partner?.email;
      await (throttle && email ? throttle.attempt({ email, address: request.ip }, reply, change) : change());
      return reply.code(204).send(null);
    },
  );
}
