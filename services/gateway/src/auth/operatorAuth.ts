import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { parseOperatorToken, secretMatches } from '@esim/api-keys';
import { AppError } from '@esim/errors';
import type { Logger } from '@esim/telemetry';
import { isOneOf, operatorRoles, roleAllows, type OperatorRole } from '@esim/vocabulary';
import type { PartnersClient } from '../backends.js';
import { presentedCredential } from './credentials.js';
import { roleNeeded } from './operatorRoles.js';

/** Who is calling the admin API, from the credential (§10): an operator account, or the break-glass ADMIN_TOKEN. */
export interface OperatorPrincipal {
  /** `opr_…`, or `admin-token`. */
  id: string;
  email: string | null;
  role: OperatorRole;
}

declare module 'fastify' {
  interface FastifyRequest {
    operator?: OperatorPrincipal;
  }
}

export const adminTokenActor = 'admin-token';

interface CachedCredential {
  operatorId: string;
  email: string;
  role: OperatorRole;
  secretHash: string;
  revoked: boolean;
  /** null: no operator has this prefix. */
  readAtMs: number;
}

export interface OperatorAuthDeps {
  adminToken: string;
  partners: PartnersClient;
  logger: Logger;
  /**
   * How long a replica trusts a credential it read. Revocation and role
   * changes take effect within this on every replica without any event
   * (§10: within 2 s), so it stays at 1 s.
   */
  credentialTtlMs?: number;
  now?: () => number;
}

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * Every admin route's onRequest hook: authenticates the caller (an operator
 * token `op_<prefix>_<secret>`, its secret compared with the stored hash in
 * constant time; or ADMIN_TOKEN, compared as digests in constant time), then
 * checks the route's role in the one table (auth/operatorRoles.ts). Missing
 * credentials are UNAUTHENTICATED; a wrong, unknown or revoked token is
 * INVALID_TOKEN; a role that does not allow the call is 403
 * OPERATOR_ROLE_REQUIRED naming the role needed.
 */
export function requireOperator(deps: OperatorAuthDeps) {
  const expected = digest(deps.adminToken);
  const ttlMs = deps.credentialTtlMs ?? 1_000;
  const now = deps.now ?? Date.now;
  const cache = new Map<string, CachedCredential | null>();
  const cachedAt = new Map<string, number>();
  const touchedAt = new Map<string, number>();

  async function credentialOf(prefix: string): Promise<CachedCredential | null> {
    const at = cachedAt.get(prefix);
    if (at !== undefined && now() - at < ttlMs) return cache.get(prefix) ?? null;
    let found: CachedCredential | null;
    try {
      const credential = await deps.partners.lookupOperatorToken({ prefix });
      if (!isOneOf(operatorRoles, credential.role)) throw new AppError('INTERNAL', `operator ${credential.operatorId} has role ${credential.role}`);
      found = { ...credential, role: credential.role, readAtMs: now() };
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'NOT_FOUND')) throw error;
      found = null;
    }
    // Bounded: a flood of made-up prefixes cannot grow the map past a few thousand entries.
    if (cache.size > 10_000) {
      cache.clear();
      cachedAt.clear();
    }
    cache.set(prefix, found);
    cachedAt.set(prefix, now());
    return found;
  }

  /** lastUsedAt to the minute: at most one write per operator per minute from this replica, never awaited. */
  function touch(operatorId: string): void {
    const last = touchedAt.get(operatorId) ?? 0;
    if (now() - last < 60_000) return;
    touchedAt.set(operatorId, now());
    deps.partners.touchOperator({ operatorId }).catch((error: unknown) => deps.logger.warn({ err: error, operatorId }, 'operator lastUsedAt not recorded'));
  }

  async function authenticate(request: FastifyRequest): Promise<OperatorPrincipal> {
    const credential = presentedCredential(request);
    if (!credential || credential.source !== 'authorization') {
      throw new AppError('UNAUTHENTICATED', 'Send your operator token (or the admin token) as Authorization: Bearer <token>.');
    }
    if (credential.scheme !== 'bearer') throw new AppError('INVALID_TOKEN', 'Use Authorization: Bearer <token>.');
    if (timingSafeEqual(digest(credential.token), expected)) return { id: adminTokenActor, email: null, role: 'admin' };
    const parts = parseOperatorToken(credential.token);
    if (!parts) throw new AppError('INVALID_TOKEN', 'The token is not a valid operator or admin token.');
    const found = await credentialOf(parts.prefix);
    if (!found || !secretMatches(parts.secret, found.secretHash)) throw new AppError('INVALID_TOKEN', 'The operator token is unknown.');
    if (found.revoked) throw new AppError('INVALID_TOKEN', 'The operator token was revoked.');
    touch(found.operatorId);
    return { id: found.operatorId, email: found.email, role: found.role };
  }

  return async (request: FastifyRequest): Promise<void> => {
    const operator = await authenticate(request);
    request.operator = operator;
    const routeUrl = request.routeOptions.url;
    if (routeUrl === undefined) return;
    const needed = roleNeeded(request.method, routeUrl);
    if (!roleAllows(operator.role, needed)) {
      throw new AppError('OPERATOR_ROLE_REQUIRED', `This call needs the ${needed} role${needed === 'admin' ? '' : ' (or admin)'}; your role is ${operator.role}.`);
    }
  };
}

export function operatorOf(request: FastifyRequest): OperatorPrincipal {
  if (!request.operator) throw new AppError('INTERNAL', 'admin route is missing its operator check');
  return request.operator;
}
