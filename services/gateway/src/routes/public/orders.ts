import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '@esim/errors';
import { ordersV1 } from '@esim/proto';
import { orderStatuses } from '@esim/vocabulary';
import type { OrdersClient } from '../../backends.js';
import type { CatalogVersion } from '../../cache/catalogVersion.js';
import { component } from '../../http/components.js';
import { pageOf, pageQuery, pagination, problems } from '../../http/schemas.js';
import { toProtoEnum } from '../../views/enums.js';
import { orderCreatedView, orderView, toOrderView } from '../../views/orders.js';
import { iccidPattern, idOrNotFound } from '../ids.js';
import { accountOf, type PartnerDoors } from '../partnerDoors.js';

/** §7 group orders: 1–50 eSIMs of the plan; an integer, not a string of digits; never with `iccid`. */
export const quantityField = z
  .number({ error: 'must be a whole number from 1 to 50' })
  .int('must be a whole number from 1 to 50')
  .min(1, 'must be a whole number from 1 to 50')
  .max(50, 'must be a whole number from 1 to 50')
  .optional()
  .describe('How many eSIMs of the plan to order at once (1–50, default 1): one order, one debit of quantity × unit price. Not with `iccid`');

/** A top-up adds one bundle to one eSIM: `quantity` with `iccid` is refused, naming `quantity`. */
export function noQuantityWithIccid(body: { quantity?: number | undefined; iccid?: string | undefined }, context: z.core.$RefinementCtx): void {
  if (body.quantity !== undefined && body.iccid !== undefined) {
    context.addIssue({ code: 'custom', path: ['quantity'], message: 'cannot be combined with iccid: a top-up adds one bundle to one eSIM' });
  }
}

/** What a create and a quote both take (§7). */
export const orderFields = {
  planId: z.string().min(1, 'must not be empty').max(64, 'must be at most 64 characters').describe('A plan id from GET /partner/catalog'),
  email: z.email('must be a valid e-mail address').max(254, 'must be at most 254 characters').describe("The customer's e-mail address"),
  phoneNumber: z.string().regex(/^\+[1-9][0-9]{6,14}$/, 'must be E.164, e.g. +33612345678').describe("The customer's phone number, E.164"),
  iccid: z
    .string()
    .regex(iccidPattern, 'must be an ICCID: 18–22 digits')
    .optional()
    .describe('Top up this eSIM of yours with the plan (a new bundle on the same ICCID) instead of issuing a new eSIM'),
  quantity: quantityField,
};

const orderRequest = component(
  z.strictObject({
    clientRequestId: z
      .string()
      .regex(/^[A-Za-z0-9._:-]{1,64}$/, 'must be 1–64 characters of A–Z a–z 0–9 . _ : -')
      .describe('Your idempotency key, unique per partner forever: a retry with the same body answers the same order'),
    ...orderFields,
  }).superRefine(noQuantityWithIccid),
  'OrderRequest',
  'public',
);

const orderPage = component(pageOf(orderView), 'OrderPage', 'public');

/**
 * The request's one deadline. It travels with the gRPC call: orders bounds
 * the catalog's price and the wallet's debit by it (each ends before it, so
 * this answer is an outcome, not a timeout), and the debit's own transaction
 * by the order's deadline in the database's clock. A retry replays.
 */
const createOrderDeadlineMs = 10_000;
/** The same for a cancellation: the supplier's revoke (through provisioning) and the refund end within it. */
const cancelOrderDeadlineMs = 15_000;

export interface OrderRouteDeps {
  orders: OrdersClient;
  doors: PartnerDoors;
  /**
   * Sent with every new order (and top-up): orders charges no price it cached
   * before this version, so an order placed after an admin plan write has
   * been answered pays the new price without waiting for the change event.
   */
  catalogVersion?: CatalogVersion;
}

/** POST /partner/orders and /partner/orders/{orderId}/cancel (orders:write); GET /partner/orders and /partner/orders/{orderId} (orders:read) and their portal twins (§7). */
export function orderRoutes(app: FastifyInstance, { orders, doors, catalogVersion }: OrderRouteDeps): void {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  // Read while the door counts the request, in the same Redis round trip.
  const versions = new WeakMap<FastifyRequest, number>();
  const alongside = catalogVersion && (async (request: FastifyRequest) => versions.set(request, await catalogVersion.read()));
  const write = doors.apiKey('orders:write', { alongside });
  const cancel = doors.apiKey('orders:write');

  typed.post(
    '/partner/orders',
    {
      schema: {
        tags: ['Orders'],
        summary: 'Order an eSIM, paid from your wallet',
        description:
          'Debits the plan’s price for your tier and queues provisioning: 201 with the order (`processing`) and your new wallet balance. ' +
          'The same `clientRequestId` with the same body answers 200 with the order in its current state and the header `Idempotent-Replayed: true`, debiting nothing; ' +
          'with a different body, 422 IDEMPOTENCY_CONFLICT; while the first request is still running, 409 REQUEST_IN_PROGRESS (retry). ' +
          '402 INSUFFICIENT_BALANCE debits nothing and lists no order; 422 PLAN_NOT_AVAILABLE for an unknown or inactive plan. ' +
          'With `iccid`, a top-up (`kind: topup`): 404 ESIM_NOT_FOUND for an unknown or another partner’s eSIM, 409 ESIM_NOT_TOPPABLE for a cancelled one, ' +
          '422 PLAN_NOT_COMPATIBLE when the plan does not cover every country of the eSIM (GET /partner/catalog?iccid= lists the plans that do).',
        security: write.security,
        body: orderRequest,
        response: {
          201: orderCreatedView,
          200: orderCreatedView.describe('A replay of an earlier request (header Idempotent-Replayed: true)'),
          ...problems(400, 402, 404, 409, 413, 415, 422),
          ...write.problems,
        },
      },
      onRequest: write.onRequest,
    },
    async (request, reply) => {
      const { partnerId, tier } = accountOf(request);
      const version = versions.get(request);
      // Redis answered the rate limit but not the version: as when it answers neither, 503 and nothing is charged.
      if (catalogVersion && version === undefined) throw new AppError('UNAVAILABLE', 'A dependency is unavailable; retry shortly.');
      const result = await orders.createOrder(
        { partnerId, tier, ...request.body, catalogVersion: BigInt(version ?? 0) },
        { deadlineMs: createOrderDeadlineMs },
      );
      const body = { ...toOrderView(result.order!), walletBalance: Number(result.walletBalance) };
      if (result.replayed) return reply.code(200).header('idempotent-replayed', 'true').send(body);
      return reply.code(201).send(body);
    },
  );

  typed.post(
    '/partner/orders/:orderId/cancel',
    {
      schema: {
        tags: ['Orders'],
        summary: 'Cancel an order that was never used, refunding its price',
        description:
          'No body. 200 with the order in status `cancelled`: its full price is back in your wallet as one `refund` entry, the bundle ' +
          '(for an `esim` order, the whole eSIM) is revoked at the supplier, and an `order.cancelled` event follows. Cancelling a cancelled order ' +
          'answers 200 again and refunds nothing more. 409 ORDER_NOT_CANCELLABLE (`detail` names the rule) unless the order is `provisioned`, ' +
          'its bundle unused, within the cancellation window of provisioning and, for an `esim` order, the eSIM not installed and without a top-up ' +
          'that is not cancelled; nothing changes. 503 UNAVAILABLE when the supplier cannot be reached: nothing changed, safe to retry. ' +
          'An unknown, malformed or another partner’s order id: 404 ORDER_NOT_FOUND.',
        security: cancel.security,
        params: z.object({ orderId: z.string() }),
        response: { 200: orderView, ...problems(404, 409, 413, 415), ...cancel.problems },
      },
      onRequest: cancel.onRequest,
    },
    async (request) => {
      const orderId = idOrNotFound('ord', 'ORDER_NOT_FOUND', request.params.orderId);
      const result = await orders.cancelOrder({ partnerId: accountOf(request).partnerId, orderId }, { deadlineMs: cancelOrderDeadlineMs });
      return toOrderView(result.order!);
    },
  );

  for (const door of doors.both('orders:read')) {
    const tags = [door.portal ? 'Portal' : 'Orders'];
    const portal = door.portal ? ' (portal)' : '';

    typed.get(
      `${door.prefix}/orders`,
      {
        schema: {
          tags,
          summary: `Your orders, newest first${portal}`,
          security: door.security,
          querystring: z.strictObject({ status: z.enum(orderStatuses).optional(), ...pageQuery() }),
          response: { 200: orderPage, ...problems(400), ...door.problems },
        },
        onRequest: door.onRequest,
      },
      async (request) => {
        const { status, page, limit } = request.query;
        const result = await orders.listOrders({
          partnerId: accountOf(request).partnerId,
          status: toProtoEnum(ordersV1.OrderStatus, status),
          page: { page, limit },
        });
        return { data: result.orders.map(toOrderView), pagination: pagination(page, limit, result.total) };
      },
    );

    typed.get(
      `${door.prefix}/orders/:orderId`,
      {
        schema: {
          tags,
          summary: `One of your orders, with its eSIM once provisioned${portal}`,
          description: 'An unknown id, a malformed one and another partner’s order all answer 404 ORDER_NOT_FOUND.',
          security: door.security,
          params: z.object({ orderId: z.string() }),
          response: { 200: orderView, ...problems(404), ...door.problems },
        },
        onRequest: door.onRequest,
      },
      async (request) => {
        const id = idOrNotFound('ord', 'ORDER_NOT_FOUND', request.params.orderId);
        return toOrderView(await orders.getOrder({ id, partnerId: accountOf(request).partnerId }));
      },
    );
  }
}
