import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '@esim/errors';
import { ordersV1 } from '@esim/proto';
import { signatureHeader, verify } from '@esim/supplier-signature';
import type { OrdersClient } from '../../backends.js';
import { component } from '../../http/components.js';
import { problems } from '../../http/schemas.js';
import { toProtoEnum } from '../../views/enums.js';
import { iccidPattern } from '../ids.js';

const common = {
  id: z.string().min(1, 'must not be empty').max(100, 'must be at most 100 characters').describe('The supplier’s notification id: the dedupe key'),
  occurredAt: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time' }),
  iccid: z.string().regex(iccidPattern, 'must be an ICCID: 18–22 digits'),
};
const reference = z.string().min(1, 'must not be empty').max(64, 'must be at most 64 characters').describe('The bundle’s order id (our reference at the supplier)');

/** §13: what the supplier reports. Fields beyond these are ignored, so a supplier adding one is not refused. */
const notification = component(
  z.discriminatedUnion('type', [
    z.object({ type: z.literal('esim.installed'), ...common }),
    z.object({
      type: z.literal('bundle.usage'),
      ...common,
      reference,
      dataUsedMb: z.number().int('must be a whole number').min(0, 'must be ≥ 0').max(2_147_483_647).describe('Cumulative use of that bundle, in MB'),
    }),
    z.object({ type: z.literal('bundle.expired'), ...common, reference }),
  ]),
  'SupplierNotification',
  'public',
);

const answer = (status: 'accepted' | 'duplicate') => z.object({ id: z.string(), status: z.literal(status) });
const accepted = component(answer('accepted'), 'SupplierNotificationAccepted', 'public');
const duplicate = component(answer('duplicate'), 'SupplierNotificationDuplicate', 'public');

export interface SupplierNotificationDeps {
  orders: OrdersClient;
  /** SUPPLIER_CALLBACK_SECRET. */
  secret: string;
  /** Unix seconds; tests move the clock. */
  nowSeconds?: () => number;
  /** The /api/v1 alias: same handler, left out of the OpenAPI document. */
  hidden?: boolean;
}

/**
 * POST /supplier/v1/notifications: the supplier's signed reports (§13). The
 * signature covers the exact bytes sent, so this scope parses JSON itself,
 * after checking the signature: no unauthenticated byte reaches the parser's
 * answers or the orders service. Register it in its own encapsulated scope.
 */
export function supplierNotificationRoute(app: FastifyInstance, deps: SupplierNotificationDeps): void {
  const nowSeconds = deps.nowSeconds ?? (() => Math.floor(Date.now() / 1000));
  const rawBodies = new WeakMap<FastifyRequest, Buffer>();

  // This scope only: keep the raw bytes; JSON is parsed once the signature holds.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    rawBodies.set(request, body as Buffer);
    done(null, undefined);
  });

  app.withTypeProvider<ZodTypeProvider>().post(
    '/supplier/v1/notifications',
    {
      schema: {
        hide: deps.hidden,
        tags: ['Supplier'],
        summary: 'Receive a notification from the eSIM supplier',
        description:
          'Called by the supplier, not by partners: the profile was installed on a device (`esim.installed`), a bundle’s cumulative use ' +
          '(`bundle.usage`) or its expiry (`bundle.expired`). Signed with `X-Supplier-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` ' +
          'keyed with SUPPLIER_CALLBACK_SECRET. A missing or wrong signature, or `t` more than 5 minutes away: 401 UNAUTHENTICATED, nothing recorded. ' +
          '202 once durably recorded (its effects follow asynchronously); 200 `duplicate` for an id seen before, nothing applied again. ' +
          'A cumulative use lower than one already recorded is ignored.',
        security: [{ supplierSignature: [] }],
        body: notification,
        response: { 202: accepted, 200: duplicate, ...problems(400, 401, 413, 415, 503) },
      },
      preValidation: (request, _reply, done) => {
        const raw = rawBodies.get(request) ?? Buffer.alloc(0);
        const header = request.headers[signatureHeader];
        if (typeof header !== 'string' || header.length === 0) {
          return done(new AppError('UNAUTHENTICATED', 'Sign the notification with X-Supplier-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256>.'));
        }
        if (!verify(deps.secret, header, raw, nowSeconds())) {
          return done(new AppError('UNAUTHENTICATED', 'The X-Supplier-Signature is malformed, wrong, or its timestamp is more than 5 minutes away.'));
        }
        if (raw.length === 0) return done(new AppError('VALIDATION_ERROR', 'body: a notification is required', { errors: [{ path: 'body', message: 'is required' }] }));
        try {
          request.body = JSON.parse(raw.toString('utf8'));
        } catch {
          return done(new AppError('MALFORMED_JSON', 'The request body is not valid JSON.'));
        }
        done();
      },
    },
    async (request, reply) => {
      const body = request.body;
      const result = await deps.orders.recordSupplierNotification({
        id: body.id,
        type: toProtoEnum(ordersV1.SupplierNotificationType, body.type),
        occurredAt: body.occurredAt,
        iccid: body.iccid,
        reference: 'reference' in body ? body.reference : undefined,
        dataUsedMb: 'dataUsedMb' in body ? body.dataUsedMb : undefined,
      });
      if (result.duplicate) return reply.code(200).send({ id: body.id, status: 'duplicate' as const });
      return reply.code(202).send({ id: body.id, status: 'accepted' as const });
    },
  );
}
