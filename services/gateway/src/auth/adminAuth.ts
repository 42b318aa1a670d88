import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { AppError } from '@esim/errors';
import { presentedCredential } from './credentials.js';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * Every admin route: `Authorization: Bearer <ADMIN_TOKEN>`, compared in
 * constant time (digests of equal length). Missing is UNAUTHENTICATED
 * (X-Api-Key does not count here); anything else that is not the token is
 * INVALID_TOKEN.
 */
export function requireAdminToken(adminToken: string) {
  const expected = digest(adminToken);
  return async (request: FastifyRequest): Promise<void> => {
    const credential = presentedCredential(request);
    if (!credential || credential.source !== 'authorization') {
      throw new AppError('UNAUTHENTICATED', 'Send the admin token as Authorization: Bearer <token>.');
    }
    if (credential.scheme !== 'bearer' || !timingSafeEqual(digest(credential.token), expected)) {
      throw new AppError('INVALID_TOKEN', 'The admin token is wrong.');
    }
  };
}

const printable = /^[\x20-\x7e]{1,100}$/;

/** Who did it, for the audit log: the optional X-Operator header and the request id. */
export function auditContextOf(request: FastifyRequest): { operator: string; requestId: string } {
  const operator = request.headers['x-operator'];
  return { operator: typeof operator === 'string' && printable.test(operator) ? operator : '', requestId: request.id };
}
