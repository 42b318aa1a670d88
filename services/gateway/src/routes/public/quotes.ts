import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '@esim/errors';
import type { OrdersClient } from '../../backends.js';
import type { CatalogVersion } from '../../cache/catalogVersion.js';
import { component } from '../../http/components.js';
import { problems } from '../../http/schemas.js';
import { accountOf, type PartnerDoors } from '../partnerDoors.js';
import { noQuantityWithIccid, orderFields } from './orders.js';

const quoteRequest = component(z.strictObject(orderFields).superRefine(noQuantityWithIccid), 'QuoteRequest', 'public');

export const quoteView = component(
  z.object({
    planId: z.string(),
    quantity: z.number().int(),
    unitPrice: z.number().int().describe('The price of one eSIM (or bundle) for your tier, minor units'),
    price: z.number().int().describe('quantity × unitPrice: what the order would debit'),
    currency: z.string(),
    walletBalance: z.number().int().describe('Your balance now'),
    balanceAfter: z.number().int().describe('walletBalance − price; negative when the balance falls short'),
    sufficientBalance: z.boolean(),
    compatible: z.boolean().nullable().describe('With `iccid`: whether the plan covers every country of that eSIM (a top-up needs it); null otherwise'),
  }),
  'Quote',
  'public',
);

/** A quote waits on the catalog and the wallet behind the orders service, as a create does. */
const quoteDeadlineMs = 10_000;

/** POST /partner/orders/quote (orders:write): what an order would cost, recording nothing (§7). */
export function quoteRoute(app: FastifyInstance, { orders, doors, catalogVersion }: { orders: OrdersClient; doors: PartnerDoors; catalogVersion?: CatalogVersion }): void {
  const versions = new WeakMap<FastifyRequest, number>();
  const alongside = catalogVersion && (async (request: FastifyRequest) => versions.set(request, await catalogVersion.read()));
  const door = doors.apiKey('orders:write', { alongside });
  app.withTypeProvider<ZodTypeProvider>().post(
    '/partner/orders/quote',
    {
      schema: {
        tags: ['Orders'],
        summary: 'Price an order against your wallet without placing it',
        description:
          'The body of POST /partner/orders without `clientRequestId`. Records nothing and debits nothing: 200 with the unit price, the price of ' +
          '`quantity` eSIMs, your balance and the balance after. A balance too low is `sufficientBalance: false`, never 402. ' +
          'The same validation as an order (400 naming the field), 422 PLAN_NOT_AVAILABLE, and with `iccid` 404 ESIM_NOT_FOUND and 409 ESIM_NOT_TOPPABLE; ' +
          'a plan that does not cover the eSIM answers `compatible: false`.',
        security: door.security,
        body: quoteRequest,
        response: { 200: quoteView, ...problems(400, 404, 409, 413, 415, 422), ...door.problems },
      },
      onRequest: door.onRequest,
    },
    async (request) => {
      const { partnerId, tier } = accountOf(request);
      const version = versions.get(request);
      if (catalogVersion && version === undefined) throw new AppError('UNAVAILABLE', 'A dependency is unavailable; retry shortly.');
      const quote = await orders.quoteOrder({ partnerId, tier, ...request.body, catalogVersion: BigInt(version ?? 0) }, { deadlineMs: quoteDeadlineMs });
      return {
        planId: quote.planId,
        quantity: quote.quantity,
        unitPrice: Number(quote.unitPrice),
        price: Number(quote.price),
        currency: quote.currency,
        walletBalance: Number(quote.walletBalance),
        balanceAfter: Number(quote.balanceAfter),
        sufficientBalance: quote.sufficientBalance,
        compatible: quote.compatible ?? null,
      };
    },
  );
}
