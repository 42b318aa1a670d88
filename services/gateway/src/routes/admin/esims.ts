import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { accountIdOf } from '@esim/ids';
import { ordersV1 } from '@esim/proto';
import { esimStatuses } from '@esim/vocabulary';
import type { OrdersClient } from '../../backends.js';
import { component } from '../../http/components.js';
import { pageOf, pageQuery, pagination, problems } from '../../http/schemas.js';
import { toProtoEnum } from '../../views/enums.js';
import { adminEsimView, toAdminEsimView } from '../../views/esims.js';
import { iccidOrNotFound } from '../ids.js';
import { livemodeQuery } from './livemodeQuery.js';

const tags = ['eSIMs'];
const adminEsimPage = component(pageOf(adminEsimView), 'AdminEsimPage', 'admin');

/** Any partner's eSIMs, read-only, for the console (§13). */
export function adminEsimRoutes(app: FastifyInstance, { orders }: { orders: OrdersClient }): void {
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.get(
    '/esims',
    {
      schema: {
        tags,
        summary: 'eSIMs of every partner, newest first',
        description: 'Live eSIMs unless `livemode=false` asks for test-mode eSIMs (§14); each shows its mode in `livemode`.',
        querystring: z.strictObject({
          partnerId: z.string().min(1).max(64).optional().describe('Only this partner’s eSIMs (of the mode asked)'),
          status: z.enum(esimStatuses).optional(),
          ...livemodeQuery,
          ...pageQuery(),
        }),
        response: { 200: adminEsimPage, ...problems(400, 401, 503) },
      },
    },
    async (request) => {
      const { partnerId, status, livemode, page, limit } = request.query;
      const result = await orders.listEsims({
        partnerId: partnerId === undefined ? '' : accountIdOf(partnerId, livemode),
        status: toProtoEnum(ordersV1.EsimStatus, status),
        livemode,
        page: { page, limit },
      });
      return { data: result.esims.map(toAdminEsimView), pagination: pagination(page, limit, result.total) };
    },
  );

  typed.get(
    '/esims/:iccid',
    {
      schema: {
        tags,
        summary: 'One eSIM of any partner, with its use and bundles',
        params: z.object({ iccid: z.string() }),
        response: { 200: adminEsimView, ...problems(401, 404, 503) },
      },
    },
    async (request) => toAdminEsimView(await orders.getEsim({ iccid: iccidOrNotFound(request.params.iccid), partnerId: '' })),
  );
}
