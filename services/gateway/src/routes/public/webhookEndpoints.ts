import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '@esim/errors';
import { accountIdOf, isId, partnerIdOf } from '@esim/ids';
import { auditContextOf } from '../../auth/adminAuth.js';
import type { WebhooksClient } from '../../backends.js';
import { component } from '../../http/components.js';
import { livemodeParam } from '../../http/modeQuery.js';
import { problems, type problemSchema } from '../../http/schemas.js';
import {
  createEndpointBody,
  eventTypesMessage,
  recoverEndpointBody,
  rotateEndpointSecretBody,
  toWebhookEndpointView,
  updateEndpointBody,
  webhookEndpointView,
  webhookEndpointWithSecret,
} from '../../views/webhookEndpoints.js';
import type { RateLimit } from '../../auth/rateLimits.js';
import { accountOf, type PartnerDoors } from '../partnerDoors.js';

const endpointList = component(z.object({ data: z.array(webhookEndpointView) }), 'WebhookEndpointList', 'both');
const recoverAccepted = component(z.object({ queued: z.number().int().describe('Deliveries queued again') }), 'WebhookRecoverAccepted', 'both');
/** The admin twins' mode; the portal door adds its own `?livemode` to portal routes and resolves the account itself. */
const adminModeQuery = z.strictObject({ livemode: livemodeParam.describe('false: the test-mode endpoints (§14); absent or true: the live ones') });
const testAccepted = component(z.object({ eventId: z.string().describe('evt_…: the id the test webhook will carry') }), 'WebhookEndpointTestAccepted', 'both');

/** Who the routes act for: the portal's partner (JWT), or an operator naming the partner in the path. */
interface Surface {
  base: string;
  params: z.ZodObject;
  security?: Array<Record<string, string[]>>;
  onRequest?: unknown;
  problems: Record<number, typeof problemSchema>;
  tags: string[];
  /** The owner: endpoints by id are reached through either of its accounts (the id names the mode). */
  partnerOf(request: FastifyRequest): string;
  /**
   * The account a list or a create acts on: `livemode` when the request
   * names one (the create body), else the surface's own mode (the portal
   * door's `?livemode`, the admin twins' query), live by default.
   */
  accountOf(request: FastifyRequest, livemode: boolean | undefined): string;
  /** Admin only: the list's own mode parameter (the portal door brings its own). */
  listQuery?: typeof adminModeQuery;
  auditOf(request: FastifyRequest): { operator: string; requestId: string } | undefined;
  /** The portal's test events share one budget per partner with POST /partner/me/webhook/test (§3: 10 a minute). */
  testLimit?: RateLimit;
}

/** §9 "Several endpoints per partner", for the partner in the portal. */
export function webhookEndpointRoutes(
  app: FastifyInstance,
  { webhooks, doors, allowInsecureWebhookUrls, testLimit }: { webhooks: WebhooksClient; doors: PartnerDoors; allowInsecureWebhookUrls: boolean; testLimit?: RateLimit },
): void {
  const door = doors.portal;
  endpointRoutes(app, webhooks, allowInsecureWebhookUrls, {
    base: `${door.prefix}/webhook-endpoints`,
    params: z.object({}),
    security: door.security,
    onRequest: door.onRequest,
    problems: door.problems,
    tags: ['Portal'],
    // The owner: a JWT reaches both of the partner's accounts; the door's ?livemode picks one, or the endpoint id names it.
    partnerOf: (request) => partnerIdOf(accountOf(request).partnerId),
    accountOf: (request, livemode) => {
      const account = accountOf(request);
      return livemode === undefined ? account.partnerId : accountIdOf(partnerIdOf(account.partnerId), livemode);
    },
    auditOf: () => undefined,
    ...(testLimit ? { testLimit } : {}),
  });
}

/** The operators' twins under /admin/v1/partners/{id}/webhook-endpoints (audited). */
export function adminWebhookEndpointRoutes(app: FastifyInstance, { webhooks, allowInsecureWebhookUrls }: { webhooks: WebhooksClient; allowInsecureWebhookUrls: boolean }): void {
  endpointRoutes(app, webhooks, allowInsecureWebhookUrls, {
    base: '/partners/:id/webhook-endpoints',
    params: z.object({ id: z.string().min(1) }),
    problems: problems(401, 503),
    tags: ['Webhook endpoints'],
    partnerOf: operatorPartnerOf,
    accountOf: (request, livemode) => {
      // The list's query is validated to a boolean; elsewhere the body's livemode (or live) decides.
      const listed = (request.query as { livemode?: unknown } | undefined)?.livemode;
      return accountIdOf(operatorPartnerOf(request), livemode ?? listed !== false);
    },
    listQuery: adminModeQuery,
    auditOf: auditContextOf,
  });
}

/** The partner an operator names in the path (a live partner id; the mode is a parameter). */
function operatorPartnerOf(request: FastifyRequest): string {
  const { id } = request.params as { id: string };
  if (!isId('ptn', id)) throw new AppError('PARTNER_NOT_FOUND', `No partner ${id.slice(0, 64)}.`);
  return id;
}

function endpointRoutes(app: FastifyInstance, webhooks: WebhooksClient, allowInsecure: boolean, surface: Surface): void {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  const { tags } = surface;
  const common = { ...(surface.security ? { security: surface.security } : {}) };
  const hooks = surface.onRequest ? { onRequest: surface.onRequest as never } : {};
  const byId = surface.params.extend({ endpointId: z.string() });
  const endpointOf = (request: FastifyRequest) => {
    const { endpointId } = request.params as { endpointId: string };
    if (!isId('whe', endpointId)) throw new AppError('NOT_FOUND', `No webhook endpoint ${endpointId.slice(0, 64)}.`);
    return { partnerId: surface.partnerOf(request), id: endpointId };
  };

  typed.get(
    surface.base,
    {
      schema: {
        tags,
        summary: 'Webhook endpoints of one mode, oldest first',
        description:
          'Every receiver events of the mode go to; the primary one is the `webhookUrl` (listed while it is set). `?livemode=false`: the test-mode endpoints, whose primary one is the `testWebhookUrl` (§14).',
        ...common,
        params: surface.params,
        ...(surface.listQuery ? { querystring: surface.listQuery } : {}),
        response: { 200: endpointList, ...problems(400, 404), ...surface.problems },
      },
      ...hooks,
    },
    async (request) => ({
      data: (await webhooks.listEndpoints({ partnerId: surface.accountOf(request, undefined) })).endpoints.map(toWebhookEndpointView),
    }),
  );

  typed.post(
    surface.base,
    {
      schema: {
        tags,
        summary: 'Add a webhook endpoint',
        description:
          'At most 10 per mode (the primary one counted). `livemode: false` adds a test-mode endpoint, which receives test events only (§14); absent, the mode of the request (live, or test with `?livemode=false` in the portal). The answer carries the endpoint’s own signing secret, shown this once.',
        ...common,
        params: surface.params,
        body: createEndpointBody(allowInsecure),
        response: { 201: webhookEndpointWithSecret, ...problems(400, 404, 413, 415), ...surface.problems },
      },
      ...hooks,
    },
    async (request, reply) => {
      const { url, description, eventTypes, enabled, livemode } = request.body;
      const created = await webhooks.createEndpoint({
        partnerId: surface.accountOf(request, livemode),
        url,
        description: description ?? '',
        ...eventTypesMessage(eventTypes),
        enabled,
        audit: surface.auditOf(request),
      });
      return reply.code(201).send({ ...toWebhookEndpointView(created.endpoint), secret: created.secret });
    },
  );

  typed.patch(
    `${surface.base}/:endpointId`,
    {
      schema: {
        tags,
        summary: 'Change a webhook endpoint',
        description: 'URL, description, event types, enabled. `enabled: true` re-enables an endpoint the platform disabled for failing. The primary endpoint’s URL is your `webhookUrl`.',
        ...common,
        params: byId,
        body: updateEndpointBody(allowInsecure),
        response: { 200: webhookEndpointView, ...problems(400, 404, 413, 415), ...surface.problems },
      },
      ...hooks,
    },
    async (request) => {
      const { url, description, eventTypes, enabled } = request.body;
      const endpoint = await webhooks.updateEndpoint({
        ...endpointOf(request),
        url,
        description,
        setEventTypes: eventTypes !== undefined,
        ...eventTypesMessage(eventTypes),
        enabled,
        audit: surface.auditOf(request),
      });
      return toWebhookEndpointView(endpoint);
    },
  );

  typed.delete(
    `${surface.base}/:endpointId`,
    {
      schema: {
        tags,
        summary: 'Delete a webhook endpoint',
        description: 'Its pending deliveries end `no_endpoint`. Deleting the primary endpoint clears your `webhookUrl`.',
        ...common,
        params: byId,
        response: { 204: z.null().describe('Deleted'), ...problems(404), ...surface.problems },
      },
      ...hooks,
    },
    async (request, reply) => {
      await webhooks.deleteEndpoint({ ...endpointOf(request), audit: surface.auditOf(request) });
      return reply.code(204).send(null);
    },
  );

  typed.post(
    `${surface.base}/:endpointId/rotate-secret`,
    {
      schema: {
        tags,
        summary: 'Rotate an endpoint’s signing secret',
        description:
          'The new secret, shown this once. Until `overlapHours` (0–72, default 24) have passed, each delivery is signed with both: `webhook-signature` carries `v1,<new> v1,<old>` and `X-SERVICE-Signature-Previous` the old HMAC.',
        ...common,
        params: byId,
        body: rotateEndpointSecretBody.nullish(),
        response: { 200: webhookEndpointWithSecret, ...problems(400, 404, 409, 413, 415), ...surface.problems },
      },
      ...hooks,
    },
    async (request) => {
      const rotated = await webhooks.rotateEndpointSecret({ ...endpointOf(request), overlapHours: request.body?.overlapHours, audit: surface.auditOf(request) });
      return { ...toWebhookEndpointView(rotated.endpoint), secret: rotated.secret };
    },
  );

  typed.post(
    `${surface.base}/:endpointId/recover`,
    {
      schema: {
        tags,
        summary: 'Resend what an endpoint missed',
        description: 'Every event since `since` (within the last 30 days, the retention) whose delivery to this endpoint failed or never happened is sent again, in order, once.',
        ...common,
        params: byId,
        body: recoverEndpointBody,
        response: { 202: recoverAccepted, ...problems(400, 404, 413, 415), ...surface.problems },
      },
      ...hooks,
    },
    async (request, reply) => {
      const { queued } = await webhooks.recoverEndpoint({ ...endpointOf(request), since: request.body.since, audit: surface.auditOf(request) });
      return reply.code(202).send({ queued });
    },
  );

  typed.post(
    `${surface.base}/:endpointId/test`,
    {
      schema: {
        tags,
        summary: 'Send a test event to this endpoint alone',
        description: 'Queues a `webhook.test`, signed and retried like every event, to this endpoint only (even while it is disabled).',
        ...common,
        params: byId,
        response: { 202: testAccepted, ...problems(404, 429), ...surface.problems },
      },
      ...hooks,
      // Counted without touching the portal's RateLimit-* headers, which stay the per-partner portal quota's.
      preHandler: async (request, reply) => surface.testLimit?.countAttempt(surface.partnerOf(request), reply, 'At most 10 test webhooks a minute; retry later.'),
    },
    async (request, reply) => reply.code(202).send({ eventId: (await webhooks.sendEndpointTest({ ...endpointOf(request), audit: surface.auditOf(request) })).eventId }),
  );
}
