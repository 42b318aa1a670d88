import type { FastifyReply, FastifyRequest } from 'fastify';
import { jwtVerify, SignJWT } from 'jose';
import { looksLikeKey } from '@esim/api-keys';
import { AppError } from '@esim/errors';
import type { partnersV1 } from '@esim/proto';
import type { PartnersClient } from '../backends.js';
import { presentedCredential } from './credentials.js';
import type { RateLimit } from './rateLimits.js';

declare module 'fastify' {
  interface FastifyRequest {
    portalPartnerId?: string;
    /** The partner the portal token names, read fresh for this request (status, tier, session version). */
    portalPartner?: partnersV1.PartnerDetail;
  }
}

const audience = 'partner-portal';
export const tokenLifetimeSeconds = 3600;

export interface PortalCheckDeps {
  partners: PartnersClient;
  /** RATE_LIMIT_PER_PORTAL, counted per partner (§3). */
  limit?: RateLimit | undefined;
}

/**
 * Portal JWTs (HS256, jose): `sub` = partner id, one hour, and `sv`, the
 * partner's session version when it was issued. A password change or reset
 * raises the version, so every older token stops at once on every replica:
 * the version is read from the partners service on each portal request
 * (never cached; the portal is a person's pace, and the same read gives the
 * doors the partner's status and tier).
 */
export class PortalTokens {
  private readonly key: Uint8Array;

  constructor(
    secretBase64: string,
    private readonly issuer: string,
  ) {
    this.key = new Uint8Array(Buffer.from(secretBase64, 'base64'));
  }

  issue(partnerId: string, sessionVersion = 0): Promise<string> {
    return new SignJWT({ sv: sessionVersion })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(partnerId)
      .setIssuer(this.issuer)
      .setAudience(audience)
      .setIssuedAt()
      .setExpirationTime(`${tokenLifetimeSeconds}s`)
      .sign(this.key);
  }

  /**
   * The onRequest hook of portal routes (`/partner/me*`): Bearer JWT only. An
   * API key, in either header, is INVALID_TOKEN with a message that says so.
   * With `deps`, the partner is read, its session version checked and the
   * per-partner portal rate limit counted (RateLimit-* headers on every answer).
   */
  require(deps?: PortalCheckDeps) {
    return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
      const credential = presentedCredential(request);
      if (!credential) throw new AppError('UNAUTHENTICATED', 'Send your portal token as Authorization: Bearer <token>.');
      if (credential.source === 'x-api-key' || looksLikeKey(credential.token)) {
        throw new AppError('INVALID_TOKEN', 'This endpoint takes a portal token, not an API key.');
      }
      if (credential.scheme !== 'bearer') throw new AppError('INVALID_TOKEN', 'Use Authorization: Bearer <token>.');
      let sessionVersion: number;
      try {
        const { payload } = await jwtVerify(credential.token, this.key, { issuer: this.issuer, audience, algorithms: ['HS256'] });
        if (!payload.sub) throw new Error('no subject');
        request.portalPartnerId = payload.sub;
        sessionVersion = typeof payload.sv === 'number' ? payload.sv : 0;
      } catch {
        throw new AppError('INVALID_TOKEN', 'The portal token is malformed, expired or badly signed.');
      }
      if (!deps) return;
      const partnerId = request.portalPartnerId;
      const [found] = await Promise.all([
        deps.partners.getPartner({ id: partnerId }).catch((error: unknown) => {
          if (error instanceof AppError && error.code === 'PARTNER_NOT_FOUND') throw new AppError('INVALID_TOKEN', 'The portal token names no partner.');
          throw error;
        }),
        deps.limit?.consume(partnerId, reply),
      ]);
      if ((found.partner?.sessionVersion ?? 0) !== sessionVersion) {
        throw new AppError('INVALID_TOKEN', 'This portal session ended when the password was changed; log in again.');
      }
      request.portalPartner = found;
    };
  }
}

export function portalPartnerOf(request: FastifyRequest): string {
  if (!request.portalPartnerId) throw new AppError('INTERNAL', 'route is missing its portal token check');
  return request.portalPartnerId;
}
