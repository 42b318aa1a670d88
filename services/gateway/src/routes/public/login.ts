import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { tokenLifetimeSeconds, type PortalTokens } from '../../auth/portalAuth.js';
import type { LoginThrottle } from '../../auth/loginThrottle.js';
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
  throttle: LoginThrottle;
}

/** POST /partner/login: portal login; pending and suspended partners may log in (§4). */
export function loginRoute(app: FastifyInstance, { partners, tokens, throttle }: LoginRouteDeps): void {
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
        description:
          'Returns a portal JWT valid for one hour. At most 10 failed attempts per e-mail and 100 per source address within 15 minutes (counted before the password is checked), then 429. When password checks are saturated, 503 at once.',
        body,
        response: {
          200: loginResponse,
          ...problems(400, 401, 413, 415, 429, 503),
        },
      },
    },
    async (request, reply) => {
      const email = request.body.email.toLowerCase();
      const partner = await throttle.attempt({ email, address: request.ip }, reply, () => partners.login({ email, password: request.body.password }));
      return {
        token: await tokens.issue(partner.id, partner.sessionVersion),
        tokenType: 'Bearer' as const,
        expiresIn: tokenLifetimeSeconds,
        partner: toPartnerView(partner),
      };
    },
  );
}
