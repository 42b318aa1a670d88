import type { FastifyRequest } from 'fastify';

/**
 * What a request presented as its credential, read in one place for the
 * three kinds of caller (API key, portal JWT, admin token), so they agree on
 * the header rules of §4:
 * - `Authorization` wins over `X-Api-Key` when both are sent;
 * - `Authorization: Bearer <token>` gives the token (`scheme: 'bearer'`);
 *   any other non-empty `Authorization` is taken whole (`scheme: 'raw'`), so
 *   a key sent without "Bearer " is still recognised as a key;
 * - `X-Api-Key: <key>` gives the key (`scheme: 'raw'`).
 * Empty or blank headers count as absent. Each caller decides what it accepts.
 */
export interface PresentedCredential {
  scheme: 'bearer' | 'raw';
  token: string;
  source: 'authorization' | 'x-api-key';
}

export function presentedCredential(request: FastifyRequest): PresentedCredential | undefined {
  const authorization = request.headers.authorization?.trim();
  if (authorization) {
    const [scheme, token] = authorization.split(' ', 2);
    if (scheme?.toLowerCase() === 'bearer' && token?.trim()) return { scheme: 'bearer', token: token.trim(), source: 'authorization' };
    return { scheme: 'raw', token: authorization, source: 'authorization' };
  }
  const apiKey = request.headers['x-api-key'];
  const key = typeof apiKey === 'string' ? apiKey.trim() : '';
  return key ? { scheme: 'raw', token: key, source: 'x-api-key' } : undefined;
}

/** A compact JWS (what the portal issues): three base64url parts, the first a JSON header. */
export function looksLikeJwt(token: string): boolean {
  return /^eyJ[\w-]*\.[\w-]*\.[\w-]*$/.test(token);
}
