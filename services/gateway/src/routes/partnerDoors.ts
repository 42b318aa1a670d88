import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { AppError } from '@esim/errors';
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
    const { partnerId, tier } = principalOf(request);
    request.account = { partnerId, livemode: true, tier };
    done();
  };

  // The JWT names the partner; its status and tier are read fresh, since a portal token outlives both.
  const activePartner =
    (alongside?: Alongside): AsyncHook =>
    async (request) => {
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
      if (!partner || partner.status !== 'approved') {
        throw new AppError('ACCOUNT_NOT_ACTIVE', `The partner account is ${partner?.status ?? 'unknown'}; this view opens once it is approved.`);
      }
      if (!isOneOf(tiers, partner.tier)) throw new AppError('INTERNAL', `partner ${partner.id} has tier ${partner.tier}`);
      request.account = { partnerId: partner.id, livemode: true, tier: partner.tier };
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
    problems: problems(401, 403, 429, 503),
  });
  return { apiKey, portal: portalDoor(), both: (scope, options) => [apiKey(scope, options), portalDoor(options)] };
}

export function accountOf(request: FastifyRequest): Account {
  if (!request.account) throw new AppError('INTERNAL', 'route is behind no partner door');
  return request.account;
}
