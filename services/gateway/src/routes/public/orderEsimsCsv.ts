import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { OrdersClient } from '../../backends.js';
import { problems } from '../../http/schemas.js';
import { idOrNotFound } from '../ids.js';
import { accountOf, type PartnerDoors } from '../partnerDoors.js';

/** The columns of §7's export, in order. */
export const esimsCsvHeader = ['iccid', 'smdpAddress', 'matchingId', 'activationCode', 'appleInstallUrl'] as const;

/** RFC 4180: a field with a comma, a quote or a line break is quoted, its quotes doubled. */
function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

export function esimsCsv(esims: Record<(typeof esimsCsvHeader)[number], string>[]): string {
  const lines = [esimsCsvHeader.join(','), ...esims.map((esim) => esimsCsvHeader.map((column) => csvField(esim[column])).join(','))];
  return `${lines.join('\r\n')}\r\n`;
}

/** GET /partner/orders/{orderId}/esims.csv (orders:read) and its portal twin: one row per eSIM of the order (§7). */
export function orderEsimsCsvRoute(app: FastifyInstance, { orders, doors }: { orders: OrdersClient; doors: PartnerDoors }): void {
  for (const door of doors.both('orders:read')) {
    app.withTypeProvider<ZodTypeProvider>().get(
      `${door.prefix}/orders/:orderId/esims.csv`,
      {
        schema: {
          tags: [door.portal ? 'Portal' : 'Orders'],
          summary: `The activation codes of an order's eSIMs, as CSV${door.portal ? ' (portal)' : ''}`,
          description:
            '`text/csv`: a header row `iccid,smdpAddress,matchingId,activationCode,appleInstallUrl`, then one row per provisioned eSIM of the order ' +
            '(a group order’s every eSIM). An order with no eSIM yet answers the header row alone. An unknown, malformed or another partner’s order: 404 ORDER_NOT_FOUND.',
          security: door.security,
          params: z.object({ orderId: z.string() }),
          response: {
            200: {
              description: 'The CSV export',
              content: { 'text/csv': { schema: z.string().describe('RFC 4180 CSV with a header row') } },
            },
            ...problems(404),
            ...door.problems,
          },
        },
        onRequest: door.onRequest,
      },
      async (request, reply) => {
        const id = idOrNotFound('ord', 'ORDER_NOT_FOUND', request.params.orderId);
        const order = await orders.getOrder({ id, partnerId: accountOf(request).partnerId });
        const body = esimsCsv(order.esims);
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="${id}-esims.csv"`)
          .send(body);
      },
    );
  }
}
