import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { deliveryStatuses } from '@esim/vocabulary';
import type { RateLimit } from '../../auth/rateLimits.js';
import type { WebhooksClient } from '../../backends.js';
import { partnerIdOf } from '@esim/ids';
import { component } from '../../http/components.js';
import { pageOf, pageQuery, pagination, problems } from '../../http/schemas.js';
import { toWebhookDeliveryView, webhookDeliveryView } from '../../views/webhookDeliveries.js';
import { accountOf, type PartnerDoors } from '../partnerDoors.js';

const deliveryPage = component(pageOf(webhookDeliveryView), 'WebhookDeliveryPage', 'public');
const testEventAccepted = component(z.object({ eventId: z.string().describe('evt_…: the id the test webhook will carry') }), 'WebhookTestAccepted', 'public');

export interface WebhookRouteDeps {
  webhooks: WebhooksClient;
  doors: PartnerDoors;
  /** Test events per partner (§3: at most 10 a minute), each one stored and POSTed. */
  testLimit?: RateLimit;
}

/** The partner's own webhook delivery log and test event, in the portal (§9, JWT). */
export function webhookRoutes(app: FastifyInstance, { webhooks, doors, testLimit }: WebhookRouteDeps): void {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  const door = doors.portal;
  const tags = ['Portal'];

  typed.get(
    `${door.prefix}/webhook-deliveries`,
    {
      schema: {
        tags,
        summary: 'Your webhook deliveries, newest first',
        description:
          'One delivery per event and endpoint, with its attempts, last status code, last error and next attempt time. Live deliveries unless `livemode=false`, which lists the test-mode ones (§14).',
        security: door.security,
        querystring: z.strictObject({
          status: z.enum(deliveryStatuses).optional(),
          endpointId: z.string().max(64).optional().describe('Only the deliveries to this endpoint (whe_…)'),
          ...pageQuery(),
        }),
        response: { 200: deliveryPage, ...problems(400), ...door.problems },
      },
      onRequest: door.onRequest,
    },
    async (request) => {
      const { status, endpointId, page, limit } = request.query;
      // The portal door's ?livemode=false made the account the test one (§14): its log is of that mode alone.
      const result = await webhooks.listDeliveries({ partnerId: accountOf(request).partnerId, endpointId: endpointId ?? '', status: status ?? '', page: { page, limit } });
      return { data: result.deliveries.map(toWebhookDeliveryView), pagination: pagination(page, limit, result.total) };
    },
  );

  typed.post(
    `${door.prefix}/webhook/test`,
    {
      schema: {
        tags,
        summary: 'Send yourself a test webhook',
        description:
          'Queues a `webhook.test` event, signed and retried like every event, and listed in your delivery log. `?livemode=false`: a test-mode `webhook.test` (`livemode: false`), sent to your test endpoints (the `testWebhookUrl`, signed with the test signing secret) and listed with `livemode=false`.',
        security: door.security,
        response: { 202: testEventAccepted, ...problems(400, 429), ...door.problems },
      },
      onRequest: door.onRequest,
      // Counted without touching the portal's RateLimit-* headers, which stay the per-partner portal quota's.
      // One budget per partner, both modes together, shared with the endpoints' test route (which counts the owner too).
      preHandler: async (request, reply) => testLimit?.countAttempt(partnerIdOf(accountOf(request).partnerId), reply, 'At most 10 test webhooks a minute; retry later.'),
    },
    // The account is the test one with ?livemode=false (the portal door): the event is a test event, to the test endpoints.
    async (request, reply) => reply.code(202).send({ eventId: (await webhooks.sendTestEvent({ partnerId: accountOf(request).partnerId })).eventId }),
  );
}
