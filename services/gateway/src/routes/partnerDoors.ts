import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from 'fastify';
import { z } from 'zod';
import { AppError, validationError } from '@esim/errors';
import { accountIdOf } from '@esim/ids';
import { isOneOf, tiers, type Scope, type Tier } from '@esim/vocabulary';
import { principalOf, type Alongside } from '../auth/apiKeyAuth.js';
import { portalPartnerOf } from '../auth/portalAuth.js';
import type { PartnersClient } from '../backends.js';
import { problems, type problemSchema } from '../http/schemas.js';

/** The partner a partner-API request acts for, whichever credential it came with. */
export interface Account {
  /**
   * The account the request acts on: the partner id when live, the partner's
   * test account (`ptn_…_test`, @esim/ids accountIdOf) in test mode. Every
   * service keys partner data by it, so modes cannot mix (docs/architecture.md).
   */
  partnerId: string;
  livemode: boolean;
  tier: Tier;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by a door's hooks (see below); null on routes behind no door. */
    account: Account | null;
  }
}

type AsyncHook = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
/** Callback style for hooks that do nothing asynchronous: no promise per request. */
type CallbackHook = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void;
type Hook = AsyncHook | CallbackHook;

/**
 * One way into the partner's own resources. The API-key door serves
 * `/partner/…` to integrations; the portal door serves the read-only twin
 * `/partner/me/…` to the web portal with the JWT. Both end with
 * `request.account` set, so one handler and one schema serve both (§4).
 */
export interface Door {
  prefix: '/partner' | '/partner/me';
  portal: boolean;
  security: Array<Record<string, string[]>>;
  onRequest: Hook[];
  /** What the door itself can answer, for the OpenAPI document. */
  problems: Record<number, typeof problemSchema>;
}

export interface DoorOptions {
  /**
   * Work the route starts while the door does its own round trip (the key's
   * rate-limit count, the portal partner's lookup), once the caller is
   * authenticated; its failure fails nothing, the route copes.
   */
  alongside?: Alongside;
}

export interface PartnerDoors {
  apiKey(scope: Scope, options?: DoorOptions): Door;
  portal: Door;
  /** The API-key door with `scope`, then the portal door: register a read route once per door. */
  both(scope: Scope, options?: DoorOptions): Door[];
  /**
   * An onRoute hook for the scope the partner routes are registered in: every
   * route behind a portal door gains the `livemode` query parameter in its
   * schema (validated and in the OpenAPI document), so no portal twin can
   * forget test mode.
   */
  onRoute(route: RouteOptions): void;
}

/**
 * `?livemode=false` on a portal twin acts on the partner's test account
 * (§14, the portal's test-mode switch); absent or `true`, the live one.
 */
const livemodeQuery = z
  .enum(['true', 'false'])
  .optional()
  .describe('`false` reads your test account (test mode, §14; open while your application is pending); absent or `true`, your live account');

/** The mode a portal request asks for, read before validation (the door runs first); a bad value is refused as validation would. */
function requestedLivemode(request: FastifyRequest): boolean {
  const value = (request.query as Record<string, unknown> | undefined)?.livemode;
  if (value === undefined || value === 'true') return true;
  if (value === 'false') return false;
  throw validationError([{ path: 'livemode', message: 'must be true or false' }]);
}

export interface PartnerDoorDeps {
  /** The onRequest hook of auth/apiKeyAuth for a scope: authenticates, rate-limits, checks status and scope. */
  apiKey: (scope: Scope, alongside?: Alongside) => AsyncHook;
  /** The onRequest hook of auth/portalAuth: verifies the JWT. */
  portalToken: AsyncHook;
  partners: PartnersClient;
}

export function partnerDoors(deps: PartnerDoorDeps): PartnerDoors {
  const fromPrincipal: CallbackHook = (request, _reply, done) => {
    const { partnerId, livemode, tier } = principalOf(request);
    request.account = { partnerId: accountIdOf(partnerId, livemode), livemode, tier };
    done();
  };

  // The JWT names the partner; its status and tier are read fresh, since a portal token outlives both.
  // Live views open once approved; test views (§14) while pending too.
  const portalHooks = new WeakSet<object>();
  const activePartner = (alongside?: Alongside): AsyncHook => {
    const hook: AsyncHook = async (request) => {
      const livemode = requestedLivemode(request);
      const partnerId = portalPartnerOf(request);
      // The portal token check read the partner already (its session version); reuse it.
      const cached = request.portalPartner;
      const [found] = await Promise.allSettled([cached ? Promise.resolve(cached) : deps.partners.getPartner({ id: partnerId }), alongside?.(request)]);
      if (found.status === 'rejected') {
        const error: unknown = found.reason;
        if (error instanceof AppError && error.code === 'PARTNER_NOT_FOUND') throw new AppError('INVALID_TOKEN', 'The portal token names no partner.');
        throw error;
      }
      const partner = found.value.partner;
      const open = partner && (partner.status === 'approved' || (!livemode && partner.status === 'pending'));
      if (!open) {
        const opens = livemode ? 'this view opens once it is approved' : 'test mode is closed to it';
        throw new AppError('ACCOUNT_NOT_ACTIVE', `The partner account is ${partner?.status ?? 'unknown'}; ${opens}.`);
      }
      if (!isOneOf(tiers, partner.tier)) throw new AppError('INTERNAL', `partner ${partner.id} has tier ${partner.tier}`);
      request.account = { partnerId: accountIdOf(partner.id, livemode), livemode, tier: partner.tier };
    };
    portalHooks.add(hook);
    return hook;
  };

  const onRoute = (route: RouteOptions): void => {
    const hooks = [route.onRequest ?? []].flat();
    if (!hooks.some((hook) => portalHooks.has(hook))) return;
    const querystring = route.schema?.querystring;
    let withMode: z.ZodType;
    if (querystring === undefined) withMode = z.strictObject({ livemode: livemodeQuery });
    else if (querystring instanceof z.ZodObject) withMode = querystring.extend({ livemode: livemodeQuery });
    else throw new Error(`${route.method} ${route.url}: a portal route's querystring must be a zod object, to take livemode`);
    route.schema = { ...route.schema, querystring: withMode };
  };

  const apiKey = (scope: Scope, options: DoorOptions = {}): Door => ({
    prefix: '/partner',
    portal: false,
    security: [{ apiKey: [] }, { apiKeyHeader: [] }],
    onRequest: [deps.apiKey(scope, options.alongside), fromPrincipal],
    problems: problems(401, 403, 429, 503),
  });
  const portalDoor = (options: DoorOptions = {}): Door => ({
    prefix: '/partner/me',
    portal: true,
    security: [{ portalToken: [] }],
    onRequest: [deps.portalToken, activePartner(options.alongside)],
    // 400: a `livemode` that is neither true nor false.
    problems: problems(400, 401, 403, 429, 503),
  });
  return { apiKey, portal: portalDoor(), both: (scope, options) => [apiKey(scope, options), portalDoor(options)], onRoute };
}

export function accountOf(request: FastifyRequest): Account {
  if (!request.account) throw new AppError('INTERNAL', 'route is behind no partner door');
  return request.account;
}
