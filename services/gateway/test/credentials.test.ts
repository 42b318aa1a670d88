// Protects the one reading of Authorization / X-Api-Key that the API-key, portal and admin checks share (contract §4).
import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { looksLikeJwt, presentedCredential } from '../src/auth/credentials.js';

const request = (headers: Record<string, string>) => ({ headers }) as unknown as FastifyRequest;
const key = `sk_live_abcdefabcdef_${'A'.repeat(40)}`;

describe('presentedCredential', () => {
  it('when nothing is sent, or only blank headers, then there is no credential', () => {
    expect(presentedCredential(request({}))).toBeUndefined();
    expect(presentedCredential(request({ authorization: '', 'x-api-key': '  ' }))).toBeUndefined();
  });

  it('when Authorization is "Bearer <token>" in any case, then the token, trimmed, with the bearer scheme', () => {
    expect(presentedCredential(request({ authorization: `bEaReR ${key} ` }))).toEqual({ scheme: 'bearer', token: key, source: 'authorization' });
  });

  it('when Authorization holds something else, then the whole value is the token with the raw scheme', () => {
    expect(presentedCredential(request({ authorization: key }))).toEqual({ scheme: 'raw', token: key, source: 'authorization' });
    expect(presentedCredential(request({ authorization: 'Basic dXNlcjpwdw==' }))).toEqual({ scheme: 'raw', token: 'Basic dXNlcjpwdw==', source: 'authorization' });
    expect(presentedCredential(request({ authorization: 'Bearer' }))).toEqual({ scheme: 'raw', token: 'Bearer', source: 'authorization' });
  });

  it('when only X-Api-Key is sent, then its value, trimmed, from x-api-key', () => {
    expect(presentedCredential(request({ 'x-api-key': ` ${key}` }))).toEqual({ scheme: 'raw', token: key, source: 'x-api-key' });
  });

  it('when both are sent, then Authorization wins', () => {
    expect(presentedCredential(request({ authorization: 'Bearer garbage', 'x-api-key': key }))).toEqual({ scheme: 'bearer', token: 'garbage', source: 'authorization' });
  });
});

describe('looksLikeJwt', () => {
  it('when a compact JWS is given, then true; a key or junk, false', () => {
    expect(looksLikeJwt('eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwdG5fMSJ9.c2ln')).toBe(true);
    expect(looksLikeJwt(key)).toBe(false);
    expect(looksLikeJwt('not.a.jwt')).toBe(false);
  });
});
