import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RedisClient } from '../redis.js';
import { parseKey, secretMatches } from '@esim/api-keys';
import { AppError } from '@esim/errors';
import type { ServiceClient } from '@esim/grpc';
import type { partnersV1 } from '@esim/proto';
import type { Logger } from '@esim/telemetry';
import type { Scope, Tier } from '@esim/vocabulary';
import type { Credential } from './credentialCache.js';
import { sendProblem } from '../http/problems.js';
import { looksLikeJwt, presentedCredential } from './credentials.js';
import { refusal } from './refusal.js';
import type { RateLimit } from './rateLimits.js';

export type { Scope } from '@esim/vocabulary';

export interface Principal {
  /** The partner holding the key (never the test account: partnerDoors derives that from `livemode`). */
  partnerId: string;
  /** False for a test key (§14). */
  livemode: boolean;
  keyId: string;
  tier: Tier;
  scopes: Scope[];
}

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

export interface ApiKeyAuthDeps {
  /** The credential of a key prefix: this replica's memory first (auth/localCredentials.ts), then Redis, then the partners service. */
  credentials: { get(prefix: string): Promise<Credential | null> | Credential | null };
  /** RATE_LIMIT_PER_KEY, counted per live key. */
  limit: RateLimit;
  /** RATE_LIMIT_PER_TEST_KEY, counted per test key (§14): test traffic never spends a live budget. */
  testLimit: RateLimit;
  redis: RedisClient;
  namespace: string;
  partners: ServiceClient<typeof partnersV1.PartnersService.method>;
  logger: Logger;
}

/**
 * Work a route wants done while the key's request is counted (its Redis
 * round trip): started together, so that with ioredis auto-pipelining a
 * second Redis read travels in the same write as the rate-limit script.
 */
export type Alongside = (request: FastifyRequest) => Promise<unknown>;

/**
 * The onRequest hook of every API-key route (before the body is parsed or
 * validated): authenticates the key, counts the request against the key's
 * rate limit, rejects inactive partners and checks the route's scope, in that
 * order, each failure with its §3 code. A portal JWT sent here is
 * INVALID_TOKEN, so the caller learns it used the wrong credential.
 *
 * Test keys (§14) go through the same steps with two differences: their own
 * rate limit, and a pending partner is let in (it integrates before approval);
 * rejected and suspended partners are refused in both modes. A key whose
 * marker names the other mode than the stored key is unknown (INVALID_API_KEY).
 */
export function requireApiKey(deps: ApiKeyAuthDeps, scope: Scope, alongside?: Alongside) {
  const touched = touchDebounceOf(deps);
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    const presented = presentedCredential(request);
    // Refusals are answered here rather than thrown: the same problem, without fastify's error path.
    if (!presented) return sendProblem(request, reply, refusal('UNAUTHENTICATED', 'Send your API key as Authorization: Bearer <key> or X-Api-Key.'));
    if (looksLikeJwt(presented.token)) return sendProblem(request, reply, refusal('INVALID_TOKEN', 'This endpoint takes an API key, not a portal token.'));
    const key = parseKey(presented.token);
    if (!key) return sendProblem(request, reply, refusal('INVALID_API_KEY', 'The API key is malformed.'));
    const credential = await deps.credentials.get(key.prefix);
    if (!credential || credential.revoked || credential.livemode !== key.livemode || !secretMatches(key.secret, credential.secretHash)) {
      return sendProblem(request, reply, refusal('INVALID_API_KEY', 'The API key is unknown or revoked.'));
    }
    const limit = credential.livemode ? deps.limit : deps.testLimit;
    // A key Redis already refused in this window: answered here, before the work alongside the count,
    // with a stackless shared error, and logged at debug (its first refusal in the window was logged at info).
    if (limit.deniedLocally(credential.keyId, reply)) {
      request.logQuietly = true;
      return sendProblem(request, reply, refusal('RATE_LIMITED', limit.refusedDetail));
    }
    if (alongside) {
      // Both settle before anything is decided, so a refused request leaves no stray promise behind.
      const [counted] = await Promise.allSettled([limit.consume(credential.keyId, reply), alongside(request)]);
      if (counted.status === 'rejected') throw counted.reason;
    } else {
      await limit.consume(credential.keyId, reply);
    }
    if (!isActiveFor(credential)) return sendProblem(request, reply, refusal('ACCOUNT_NOT_ACTIVE', `The partner account is ${credential.partnerStatus}.`));
    if (!credential.scopes.includes(scope)) return sendProblem(request, reply, refusal('INSUFFICIENT_SCOPE', `This API key lacks the ${scope} scope.`));
    request.principal = {
      partnerId: credential.partnerId,
      livemode: credential.livemode,
      keyId: credential.keyId,
      tier: credential.tier,
      scopes: credential.scopes,
    };
    touched.touch(credential.keyId);
    return undefined;
  };
}

/** Live keys need an approved partner; test keys open at registration (§14), so pending is let in too. */
function isActiveFor(credential: Credential): boolean {
  return credential.partnerStatus === 'approved' || (!credential.livemode && credential.partnerStatus === 'pending');
}

/** One per gateway (every route's hook shares it), so a key is recorded once a minute whichever routes it calls. */
const debounces = new WeakMap<ApiKeyAuthDeps, TouchDebounce>();
function touchDebounceOf(deps: ApiKeyAuthDeps): TouchDebounce {
  let debounce = debounces.get(deps);
  if (!debounce) debounces.set(deps, (debounce = new TouchDebounce(deps)));
  return debounce;
}

/** `lastUsedAt` is kept to the minute (§4). */
const touchEveryMs = 60_000;

/**
 * lastUsedAt to the minute: this replica asks Redis at most once a minute per
 * key (not on every request), and Redis lets one replica a minute through to
 * the partners service.
 */
class TouchDebounce {
  private readonly lastTouched = new Map<string, number>();

  constructor(private readonly deps: ApiKeyAuthDeps) {}

  touch(keyId: string): void {
    const now = performance.now();
    const last = this.lastTouched.get(keyId);
    if (last !== undefined && now - last < touchEveryMs) return;
    // Keys not used for a minute are forgotten, so the map holds only the keys in use.
    if (this.lastTouched.size >= 10_000) for (const [id, at] of this.lastTouched) if (now - at >= touchEveryMs) this.lastTouched.delete(id);
    this.lastTouched.set(keyId, now);
    void this.record(keyId);
  }

  private async record(keyId: string): Promise<void> {
    try {
      const first = await this.deps.redis.set(`${this.deps.namespace}:gateway:touched:${keyId}`, '1', 'EX', 60, 'NX');
      if (first === 'OK') await this.deps.partners.touchApiKey({ keyId });
    } catch (error) {
      // Tried again on the key's next request rather than a minute later.
      this.lastTouched.delete(keyId);
      this.deps.logger.warn({ err: error, keyId }, 'could not record key use');
    }
  }
}

export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new AppError('INTERNAL', 'route is missing its API key check');
  return request.principal;
}
