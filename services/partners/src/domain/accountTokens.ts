import { createHash, randomBytes } from 'node:crypto';
import { validationError } from '@esim/errors';
import type { Queryable } from '@esim/postgres';
import { insertAccountToken, useAccountToken, type TokenPurpose } from '../store/tokenStore.js';

/** How long each kind of e-mailed token works (§4). */
export const tokenLifetimeMs: Record<TokenPurpose, number> = {
  verify_email: 24 * 3_600_000,
  reset_password: 30 * 60_000,
};

const tokenShape = /^[A-Za-z0-9_-]{32,128}$/;
const hashOf = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

/**
 * A fresh single-use token (43 base64url characters, 256 bits) stored only by
 * its SHA-256: the token itself exists in the e-mail alone. 256 random bits
 * need no stretching, and lookup by hash keeps the check constant-time.
 */
export async function createAccountToken(db: Queryable, partnerId: string, purpose: TokenPurpose): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await insertAccountToken(db, { tokenHash: hashOf(token), partnerId, purpose, validForMs: tokenLifetimeMs[purpose] });
  return token;
}

/** Spends a token; a malformed, unknown, used or expired one is the same 400 naming `token` (§4). */
export async function spendAccountToken(db: Queryable, token: string, purpose: TokenPurpose): Promise<string> {
  const partnerId = tokenShape.test(token) ? await useAccountToken(db, hashOf(token), purpose) : undefined;
  if (!partnerId) throw validationError([{ path: 'token', message: 'is invalid, expired or already used' }]);
  return partnerId;
}
