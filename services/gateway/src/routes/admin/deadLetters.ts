import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { auditContextOf } from '../../auth/adminAuth.js';
import { listDeadLetterPage, redriveConsumer, type DeadLetterDeps } from '../../domain/deadLetters.js';
import { component } from '../../http/components.js';
import { pageOf, pageQuery, pagination, problems } from '../../http/schemas.js';

const tags = ['Dead letters'];

/** A durable consumer's name without the namespace, as services declare it (`wallet_order_failed`). */
const consumerName = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,63}$/, 'must be a consumer name: lower-case letters, digits and _, at most 64')
  .describe('Durable consumer name without the namespace')
  .meta({ examples: ['wallet_order_failed'] });

/** What an operator sees of a dead letter: never its body, which can hold e-mails, activation codes and sealed secrets. */
export const deadLetterView = component(
  z.object({
    sequence: z.number().int().describe('Its sequence in the dead-letter stream'),
    // Not the request's pattern: what the stream holds is shown as it is, never refused at serialization.
    consumer: z.string().describe('The durable consumer that gave it up').meta({ examples: ['wallet_order_failed'] }),
    subject: z.string().describe('The subject it was consumed from, with the namespace').meta({ examples: ['esim.orders.order.paid'] }),
    reason: z.string().describe('Why the consumer gave it up: max_deliver, permanent or undecodable, then the error').meta({ examples: ['max_deliver: connection refused'] }),
    attempts: z.number().int().describe('Deliveries before it was given up'),
    originalSequence: z.number().int().nullable().describe('Its sequence in its original stream'),
    eventId: z.string().nullable().describe('The event envelope’s id; null when the body is no envelope'),
    // A template literal: natsPermissions.ts reads a quoted event type in the gateway's code as a subscription.
    eventType: z.string().nullable().describe('The event envelope’s type; null when the body is no envelope').meta({ examples: [`orders.order.paid`] }),
    deadLetteredAt: z.string(),
  }),
  'DeadLetter',
  'admin',
);

const deadLetterPage = component(pageOf(deadLetterView), 'DeadLetterPage', 'admin');
const redriveResult = component(z.object({ redriven: z.number().int().describe('Dead letters published again') }), 'DeadLetterRedrive', 'admin');

/** The namespace's dead-letter stream: what consumers gave up on, and its redrive once the cause is fixed (#14). */
export function adminDeadLetterRoutes(app: FastifyInstance, deps: DeadLetterDeps): void {
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.get(
    '/dead-letters',
    {
      schema: {
        tags,
        summary: 'Messages consumers gave up on, oldest first',
        description: 'Kept 30 days in the dead-letter stream. Each shows where it came from and why; never its body.',
        querystring: z.strictObject({ consumer: consumerName.optional(), ...pageQuery() }),
        response: { 200: deadLetterPage, ...problems(400, 401, 503) },
      },
    },
    async (request) => {
      const { consumer, page, limit } = request.query;
      const { letters, total } = await listDeadLetterPage(deps, { consumer, page, limit });
      return { data: letters, pagination: pagination(page, limit, total) };
    },
  );

  typed.post(
    '/dead-letters/redrive',
    {
      schema: {
        tags,
        summary: 'Redrive a consumer’s dead letters',
        description:
          'Publishes the consumer’s dead letters again to their original subjects, oldest first, removing each once stored; at most 1000 per call (call again for the rest). Every consumer of a subject sees it again; those that applied it already skip it. A consumer unknown to this platform: 404 NOT_FOUND. Audited.',
        body: z.strictObject({ consumer: consumerName }),
        response: { 200: redriveResult, ...problems(400, 401, 404, 503) },
      },
    },
    async (request) => ({ redriven: await redriveConsumer(deps, request.body.consumer, auditContextOf(request)) }),
  );
}
