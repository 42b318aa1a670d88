import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '@esim/errors';
import { tokenLifetimeSeconds, type PortalTokens } from '../../auth/portalAuth.js';
import type { RateLimit } from '../../auth/rateLimits.js';
import type { PartnersClient } from '../../backends.js';
import { problems } from '../../http/schemas.js';
import { partnerView, toPartnerView } from '../../views/partners.js';
import { component } from '../../http/components.js';

export const loginResponse = component(
  z.object({ token: z.string(), tokenType: z.literal('Bearer'), expiresIn: z.number().int(), partner: partnerView }),
  'LoginResponse',
  'public',
);

export interface LoginRouteDeps {
  partners: PartnersClient;
  tokens: PortalTokens;
  loginFailures: RateLimit;
}

/** POST /partner/login: portal login; pending and suspended partners may log in (§4). */
export function loginRoute(app: FastifyInstance, { partners, tokens, loginFailures }: LoginRouteDeps): void {
  const body = z.strictObject({
    email: z.string().min(1).max(254),
    password: z.string().min(1).max(1024),
  });
  app.withTypeProvider<ZodTypeProvider>().post(
    '/partner/login',
    {
      schema: {
        tags: ['Onboarding'],
        summary: 'Log in to the partner portal',
        description: 'Returns a portal JWT valid for one hour. After 10 failed attempts for one e-mail within 15 minutes, further attempts answer 429.',
        body,
        response: {
          200: loginResponse,
          ...problems(400, 401, 413, 415, 429, 503),
        },
      },
    },
    async (request, reply) => {
      const email = request.body.email.toLowerCase();
      if (await loginFailures.exhausted(email, reply)) {
        throw new AppError('RATE_LIMITED', 'Too many failed logins for this e-mail; retry later.');
      }
      try {
        const partner = await partners.login({ email, password: request.body.password });
        return { token: await tokens.issue(partner.id), tokenType: 'Bearer' as const, expiresIn: tokenLifetimeSeconds, partner: toPartnerView(partner) };
      } catch (error) {
        if (error instanceof AppError && error.code === 'INVALID_CREDENTIALS') await loginFailures.penalize(email);
        throw error;
      }
    },
  );
}
