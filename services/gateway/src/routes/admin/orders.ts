import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { accountIdOf } from '@esim/ids';
import { ordersV1 } from '@esim/proto';
import { orderStatuses } from '@esim/vocabulary';
import type { OrdersClient } from '../../backends.js';
import { component } from '../../http/components.js';
import { pageOf, pageQuery, pagination, problems } from '../../http/schemas.js';
import { toProtoEnum } from '../../views/enums.js';
import { adminOrderView, toAdminOrderView } from '../../views/orders.js';
import { idOrNotFound } from '../ids.js';
import { livemodeQuery } from './livemodeQuery.js';

const tags = ['Orders'];
const adminOrderPage = component(pageOf(adminOrderView), 'AdminOrderPage', 'admin');

/** Any partner's orders, with the partner id and the supplier's reference (§10). */
export function adminOrderRoutes(app: FastifyInstance, { orders }: { orders: OrdersClient }): void {
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.get(
    '/orders',
    {
      schema: {
        tags,
        summary: 'Orders of every partner, newest first',
        description: 'Live orders unless `livemode=false` asks for test-mode orders (§14); each shows its mode in `livemode`.',
        querystring: z.strictObject({
          partnerId: z.string().min(1).max(64).optional().describe('Only this partner’s orders (of the mode asked)'),
          status: z.enum(orderStatuses).optional(),
          ...livemodeQuery,
          ...pageQuery(),
        }),
        response: { 200: adminOrderPage, ...problems(400, 401, 503) },
      },
    },
    async (request) => {
      const { partnerId, status, livemode, page, limit } = request.query;
      const result = await orders.listOrders({
        partnerId: partnerId === undefined ? '' : accountIdOf(partnerId, livemode),
        status: toProtoEnum(ordersV1.OrderStatus, status),
        livemode,
        page: { page, limit },
      });
      return { data: result.orders.map(toAdminOrderView), pagination: pagination(page, limit, result.total) };
    },
  );

  typed.get(
    '/orders/:id',
    {
      schema: { tags, summary: 'One order of any partner', params: z.object({ id: z.string() }), response: { 200: adminOrderView, ...problems(401, 404, 503) } },
    },
    async (request) => toAdminOrderView(await orders.getOrder({ id: idOrNotFound('ord', 'ORDER_NOT_FOUND', request.params.id), partnerId: '' })),
  );
}
