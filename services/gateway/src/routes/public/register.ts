import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { RateLimit } from '../../auth/rateLimits.js';
import type { PartnersClient } from '../../backends.js';
import { problems } from '../../http/schemas.js';
import { partnerView, toPartnerView } from '../../views/partners.js';
import { webhookUrlSchema } from '../../views/webhookUrl.js';

export interface RegisterRouteDeps {
  partners: PartnersClient;
  registerLimit: RateLimit;
  allowInsecureWebhookUrls: boolean;
}

/** POST /partner/register: apply for API access (§4). */
export function registerRoute(app: FastifyInstance, { partners, registerLimit, allowInsecureWebhookUrls }: RegisterRouteDeps): void {
  const body = z.strictObject({
    name: z.string().trim().min(1).max(200),
    email: z.email('must be a valid e-mail address').max(254),
    company: z.string().trim().min(1).max(200),
    password: z.string().min(12, 'must be at least 12 characters').max(128, 'must be at most 128 characters'),
    webhookUrl: webhookUrlSchema(allowInsecureWebhookUrls).optional(),
  });
  app.withTypeProvider<ZodTypeProvider>().post(
    '/partner/register',
    {
      schema: {
        tags: ['Onboarding'],
        summary: 'Apply for API access',
        description: 'Creates a pending partner account. An operator reviews it; on approval the API key and webhook signing secret arrive by e-mail. At most 20 applications per source address per hour.',
        body,
        response: { 201: partnerView, ...problems(400, 409, 413, 415, 429, 503) },
      },
      // Counted before validation: malformed floods are throttled too.
      preValidation: async (request, reply) => registerLimit.consume(request.ip, reply),
    },
    async (request, reply) => {
      const partner = await partners.register({ ...request.body, email: request.body.email.toLowerCase() });
      return reply.code(201).send(toPartnerView(partner));
    },
  );
}
