import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { RateLimit } from '../../auth/rateLimits.js';
import type { PartnersClient } from '../../backends.js';
import { component } from '../../http/components.js';
import { problems } from '../../http/schemas.js';
import { partnerView, toPartnerView } from '../../views/partners.js';

export interface AccountRouteDeps {
  partners: PartnersClient;
  /** 20 per source address per hour each (§3): e-mail verification, and password-reset requests. */
  verifyLimit: RateLimit;
  resetLimit: RateLimit;
}

const accepted = component(z.object({ accepted: z.literal(true) }), 'Accepted', 'public');
const token = z.string().min(1, 'is required').max(256);
const email = z.string().trim().min(1, 'is required').max(254);
export const passwordRule = z.string().min(12, 'must be at least 12 characters').max(128, 'must be at most 128 characters');
const tags = ['Onboarding'];

/**
 * The public account pages' calls (§4): prove the e-mail address, ask for a
 * new link, reset a forgotten password. Every "send me a mail" call answers
 * 202 whoever asks, so none tells which addresses have accounts.
 */
export function accountRoutes(app: FastifyInstance, { partners, verifyLimit, resetLimit }: AccountRouteDeps): void {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  const limited = (limit: RateLimit) => async (request: { ip: string }, reply: Parameters<RateLimit['consume']>[1]) => limit.consume(request.ip, reply);

  typed.post(
    '/partner/verify-email',
    {
      schema: {
        tags,
        summary: 'Prove your e-mail address',
        description:
          'Takes the token of the link in the "application received" e-mail (single use, 24 hours). An operator can approve the application only after this. A bad, used or expired token: 400.',
        body: z.strictObject({ token }),
        response: { 200: partnerView, ...problems(400, 413, 415, 429, 503) },
      },
      preValidation: limited(verifyLimit),
    },
    async (request) => toPartnerView(await partners.verifyEmail({ token: request.body.token })),
  );

  typed.post(
    '/partner/verify-email/resend',
    {
      schema: {
        tags,
        summary: 'Send the verification link again',
        description: 'Answers 202 whether or not the address has an application waiting for verification.',
        body: z.strictObject({ email }),
        response: { 202: accepted, ...problems(400, 413, 415, 429, 503) },
      },
      preValidation: limited(verifyLimit),
    },
    async (request, reply) => {
      await partners.resendVerification({ email: request.body.email.toLowerCase() });
      return reply.code(202).send({ accepted: true as const });
    },
  );

  typed.post(
    '/partner/password-reset',
    {
      schema: {
        tags,
        summary: 'Ask for a password reset link',
        description: 'Answers 202 whoever asks; when the address belongs to a partner, a link ending in reset-password?token=… is e-mailed (single use, 30 minutes).',
        body: z.strictObject({ email }),
        response: { 202: accepted, ...problems(400, 413, 415, 429, 503) },
      },
      preValidation: limited(resetLimit),
    },
    async (request, reply) => {
      await partners.requestPasswordReset({ email: request.body.email.toLowerCase() });
      return reply.code(202).send({ accepted: true as const });
    },
  );

  typed.post(
    '/partner/password-reset/confirm',
    {
      schema: {
        tags,
        summary: 'Set a new password with a reset link',
        description: 'Every portal session issued before ends (401 INVALID_TOKEN); the change is e-mailed and audited. A bad, used or expired token: 400.',
        body: z.strictObject({ token, password: passwordRule }),
        response: { 204: z.null().describe('Password changed'), ...problems(400, 413, 415, 429, 503) },
      },
      preValidation: limited(resetLimit),
    },
    async (request, reply) => {
      await partners.confirmPasswordReset({ token: request.body.token, password: request.body.password });
      return reply.code(204).send(null);
    },
  );
}
