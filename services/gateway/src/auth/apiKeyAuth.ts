import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { AppError } from '@esim/errors';
import type { ServiceClient } from '@esim/grpc';
import type { partnersV1 } from '@esim/proto';
import type { Logger } from '@esim/telemetry';
import type { CredentialCache } from './credentialCache.js';
import type { RateLimit } from './rateLimits.js';

export type Scope = 'catalog:read' | 'orders:write' | 'orders:read' | 'wallet:read';

export interface Principal {
  partnerId: string;
  keyId: string;
  tier: 'standard' | 'premium' | 'enterprise';
  scopes: string[];
}

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

const keyFormat = /^sk_live_([a-z0-9]{12})_([A-Za-z0-9]{32,128})$/;
const looksLikeJwt = /^eyJ[\w-]*\.[\w-]*\.[\w-]*$/;

/** `Authorization: Bearer …` wins over `X-Api-Key` when both are sent (§4). */
export function presentedKey(request: FastifyRequest): string | undefined {
  const authorization = request.headers.authorization;
  if (authorization) {
    const [scheme, token] = authorization.split(' ', 2);
    return scheme?.toLowerCase() === 'bearer' && token ? token.trim() : authorization;
  }
  const header = request.headers['x-api-key'];
  return typeof header === 'string' ? header.trim() : undefined;
}

function sameHash(secret: string, expectedHex: string): boolean {
  const actual = createHash('sha256').update(secret, 'utf8').digest();
  const expected = Buffer.from(expectedHex, 'hex');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

export interface ApiKeyAuthDeps {
  cache: CredentialCache;
  limit: RateLimit;
  redis: Redis;
  namespace: string;
  partners: ServiceClient<typeof partnersV1.PartnersService.method>;
  logger: Logger;
}

/**
 * The onRequest hook of every API-key route (before the body is parsed or validated): authenticates the key, counts the
 * request against the key's rate limit, rejects inactive partners and checks
 * the route's scope, in that order, each failure with its §3 code.
 */
export function requireApiKey(deps: ApiKeyAuthDeps, scope: Scope) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const presented = presentedKey(request);
    if (!presented) throw new AppError('UNAUTHENTICATED', 'Send your API key as Authorization: Bearer <key> or X-Api-Key.');
    if (looksLikeJwt.test(presented)) throw new AppError('INVALID_TOKEN', 'This endpoint takes an API key, not a portal token.');
    const match = keyFormat.exec(presented);
    if (!match) throw new AppError('INVALID_API_KEY', 'The API key is malformed.');
    const [, prefix, secret] = match as unknown as [string, string, string];
    const credential = await deps.cache.get(prefix);
    if (!credential || credential.revoked || !sameHash(secret, credential.secretHash)) {
      throw new AppError('INVALID_API_KEY', 'The API key is unknown or revoked.');
    }
    await deps.limit.consume(credential.keyId, reply);
    if (credential.partnerStatus !== 'approved') throw new AppError('ACCOUNT_NOT_ACTIVE', `The partner account is ${credential.partnerStatus}.`);
    if (!credential.scopes.includes(scope)) throw new AppError('INSUFFICIENT_SCOPE', `This API key lacks the ${scope} scope.`);
    request.principal = {
      partnerId: credential.partnerId,
      keyId: credential.keyId,
      tier: credential.tier as Principal['tier'],
      scopes: credential.scopes,
    };
    void touch(deps, credential.keyId);
  };
}

/** lastUsedAt to the minute: at most one write per key per minute across all replicas. */
async function touch(deps: ApiKeyAuthDeps, keyId: string): Promise<void> {
  try {
    const first = await deps.redis.set(`${deps.namespace}:gateway:touched:${keyId}`, '1', 'EX', 60, 'NX');
    if (first === 'OK') await deps.partners.touchApiKey({ keyId });
  } catch (error) {
    deps.logger.warn({ err: error, keyId }, 'could not record key use');
  }
}

export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new AppError('INTERNAL', 'route is missing its API key check');
  return request.principal;
}
