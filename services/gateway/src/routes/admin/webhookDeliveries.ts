import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '@esim/errors';
import { accountIdOf, isId, partnerIdOf } from '@esim/ids';
import { deliveryStatuses } from '@esim/vocabulary';
import { auditContextOf } from '../../auth/adminAuth.js';
import type { WebhooksClient } from '../../backends.js';
import { component } from '../../http/components.js';
import { livemodeParam } from '../../http/modeQuery.js';
import { pageOf, pageQuery, pagination, problems } from '../../http/schemas.js';
import { adminWebhookDeliveryView, toAdminWebhookDeliveryView } from '../../views/webhookDeliveries.js';

const tags = ['Webhook deliveries'];
const deliveryPage = component(pageOf(adminWebhookDeliveryView), 'AdminWebhookDeliveryPage', 'admin');

/** The delivery log of every partner and the operator's redelivery (§9, §10). */
export function adminWebhookDeliveryRoutes(app: FastifyInstance, { webhooks }: { webhooks: WebhooksClient }): void {
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.get(
    '/webhook-deliveries',
    {
      schema: {
        tags,
        summary: 'Webhook deliveries of every partner, newest first',
        description: 'Live deliveries only, unless `livemode=false` (then test-mode ones only, §14); with `partnerId`, that partner’s account of the mode.',
        querystring: z.strictObject({
          partnerId: z.string().min(1).max(64).optional().describe('Only this partner’s deliveries'),
          endpointId: z.string().max(64).optional().describe('Only the deliveries to this endpoint (whe_…)'),
          status: z.enum(deliveryStatuses).optional(),
          livemode: livemodeParam.describe('false: test-mode deliveries (§14); absent or true: live ones'),
          ...pageQuery(),
        }),
        response: { 200: deliveryPage, ...problems(400, 401, 503) },
      },
    },
    async (request) => {
      const { partnerId, endpointId, status, livemode, page, limit } = request.query;
      const result = await webhooks.listDeliveries({
        partnerId: partnerId ? accountIdOf(partnerIdOf(partnerId), livemode) : '',
        livemode,
        endpointId: endpointId ?? '',
        status: status ?? '',
        page: { page, limit },
      });
      return { data: result.deliveries.map(toAdminWebhookDeliveryView), pagination: pagination(page, limit, result.total) };
    },
  );

  typed.post(
    '/webhook-deliveries/:id/retry',
    {
      schema: {
        tags,
        summary: 'Redeliver now',
        description:
          'Whatever its state, the delivery becomes pending with its next attempt now; its attempts keep counting, so past the retry schedule it gets exactly one more attempt. Audited.',
        params: z.object({ id: z.string() }),
        response: { 200: adminWebhookDeliveryView, ...problems(401, 404, 503) },
      },
    },
    async (request) => {
      const { id } = request.params;
      if (!isId('dlv', id)) throw new AppError('NOT_FOUND', `No webhook delivery ${id.slice(0, 64)}.`);
      return toAdminWebhookDeliveryView(await webhooks.retryDelivery({ id, audit: auditContextOf(request) }));
    },
  );
}
