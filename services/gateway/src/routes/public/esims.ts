import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ordersV1 } from '@esim/proto';
import { esimStatuses } from '@esim/vocabulary';
import type { OrdersClient } from '../../backends.js';
import { component } from '../../http/components.js';
import { pageOf, pageQuery, pagination, problems } from '../../http/schemas.js';
import { toProtoEnum } from '../../views/enums.js';
import { esimStateView, toEsimView } from '../../views/esims.js';
import { iccidOrNotFound } from '../ids.js';
import { accountOf, type PartnerDoors } from '../partnerDoors.js';

const esimPage = component(pageOf(esimStateView), 'EsimPage', 'public');

export interface EsimRouteDeps {
  orders: OrdersClient;
  doors: PartnerDoors;
}

/** GET /partner/esims and /partner/esims/{iccid} (orders:read) and their portal twins under /partner/me (§13). */
export function esimRoutes(app: FastifyInstance, { orders, doors }: EsimRouteDeps): void {
  const typed = app.withTypeProvider<ZodTypeProvider>();

  for (const door of doors.both('orders:read')) {
    const tags = [door.portal ? 'Portal' : 'eSIMs'];
    const portal = door.portal ? ' (portal)' : '';

    typed.get(
      `${door.prefix}/esims`,
      {
        schema: {
          tags,
          summary: `Your eSIMs, newest first, with their use and bundles${portal}`,
          security: door.security,
          querystring: z.strictObject({ status: z.enum(esimStatuses).optional(), ...pageQuery() }),
          response: { 200: esimPage, ...problems(400), ...door.problems },
        },
        onRequest: door.onRequest,
      },
      async (request) => {
        const { status, page, limit } = request.query;
        const result = await orders.listEsims({
          partnerId: accountOf(request).partnerId,
          status: toProtoEnum(ordersV1.EsimStatus, status),
          page: { page, limit },
        });
        return { data: result.esims.map(toEsimView), pagination: pagination(page, limit, result.total) };
      },
    );

    typed.get(
      `${door.prefix}/esims/:iccid`,
      {
        schema: {
          tags,
          summary: `One of your eSIMs: its state, use and bundles${portal}`,
          description: 'An unknown ICCID, a malformed one and another partner’s eSIM all answer 404 ESIM_NOT_FOUND.',
          security: door.security,
          params: z.object({ iccid: z.string() }),
          response: { 200: esimStateView, ...problems(404), ...door.problems },
        },
        onRequest: door.onRequest,
      },
      async (request) => toEsimView(await orders.getEsim({ iccid: iccidOrNotFound(request.params.iccid), partnerId: accountOf(request).partnerId })),
    );
  }

  // Suspension (§13): a lost or stolen device. No body; the same state again answers 200 and changes nothing.
  for (const door of doors.both('orders:write')) {
    const tags = [door.portal ? 'Portal' : 'eSIMs'];
    const portal = door.portal ? ' (portal)' : '';
    for (const action of ['suspend', 'resume'] as const) {
      const suspended = action === 'suspend';
      typed.post(
        `${door.prefix}/esims/:iccid/${action}`,
        {
          schema: {
            tags,
            summary: suspended ? `Suspend an eSIM’s data (a lost or stolen device)${portal}` : `Resume a suspended eSIM’s data${portal}`,
            description:
              `No body. The connectivity provider ${suspended ? 'stops' : 'restarts'} data on the eSIM: 200 with the eSIM view (` +
              `\`suspended: ${suspended}\`) and an \`esim.${suspended ? 'suspended' : 'resumed'}\` event. ` +
              `${suspended ? 'Suspending a suspended' : 'Resuming an active'} eSIM answers 200 and changes nothing. Bundles keep their validity clock while suspended. ` +
              '409 ESIM_NOT_SUSPENDABLE for a cancelled or deleted eSIM; 503 UNAVAILABLE when the provider cannot be reached (nothing changed, safe to retry); ' +
              'an unknown, malformed or another partner’s ICCID: 404 ESIM_NOT_FOUND.',
            security: door.security,
            params: z.object({ iccid: z.string() }),
            response: { 200: esimStateView, ...problems(404, 409, 413, 415), ...door.problems },
          },
          onRequest: door.onRequest,
        },
        async (request) =>
          toEsimView(
            await orders.setEsimSuspended(
              { iccid: iccidOrNotFound(request.params.iccid), partnerId: accountOf(request).partnerId, suspended },
              { deadlineMs: suspensionDeadlineMs },
            ),
          ),
      );
    }
  }
}

/** The provider's call (10 s in orders' client) and the eSIM's transaction, with room to spare. */
const suspensionDeadlineMs = 15_000;
