import type { FastifyRequest } from 'fastify';
import { jwtVerify, SignJWT } from 'jose';
import { looksLikeKey } from '@esim/api-keys';
import { AppError } from '@esim/errors';
import { presentedCredential } from './credentials.js';

declare module 'fastify' {
  interface FastifyRequest {
    portalPartnerId?: string;
  }
}

const audience = 'partner-portal';
export const tokenLifetimeSeconds = 3600;

/** Portal JWTs (HS256, jose): `sub` = partner id, one hour. */
export class PortalTokens {
  private readonly key: Uint8Array;

  constructor(
    secretBase64: string,
    private readonly issuer: string,
  ) {
    this.key = new Uint8Array(Buffer.from(secretBase64, 'base64'));
  }

  issue(partnerId: string): Promise<string> {
    return new SignJWT({})
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
   */
  require() {
    return async (request: FastifyRequest): Promise<void> => {
      const credential = presentedCredential(request);
      if (!credential) throw new AppError('UNAUTHENTICATED', 'Send your portal token as Authorization: Bearer <token>.');
      if (credential.source === 'x-api-key' || looksLikeKey(credential.token)) {
        throw new AppError('INVALID_TOKEN', 'This endpoint takes a portal token, not an API key.');
      }
      if (credential.scheme !== 'bearer') throw new AppError('INVALID_TOKEN', 'Use Authorization: Bearer <token>.');
      try {
        const { payload } = await jwtVerify(credential.token, this.key, { issuer: this.issuer, audience, algorithms: ['HS256'] });
        if (!payload.sub) throw new Error('no subject');
        request.portalPartnerId = payload.sub;
      } catch {
        throw new AppError('INVALID_TOKEN', 'The portal token is malformed, expired or badly signed.');
      }
    };
  }
}

export function portalPartnerOf(request: FastifyRequest): string {
  if (!request.portalPartnerId) throw new AppError('INTERNAL', 'route is missing its portal token check');
  return request.portalPartnerId;
}
