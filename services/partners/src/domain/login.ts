import { AppError } from '@esim/errors';
import { findLoginByEmail, setPassword } from '../store/partnerStore.js';
import type { PartnersDeps } from './deps.js';
import type { Partner } from './partner.js';
import { burnPasswordCheck, hashPassword, needsRehash, verifyPassword } from './passwords.js';

/**
 * Checks portal credentials; the gateway issues the token (and counts
 * failures before calling). Unknown e-mail, wrong password and a rejected
 * application all answer the same, in about the same time; every check goes
 * through the bounded hashing pool, so a flood answers UNAVAILABLE rather
 * than queueing. A hash made at a lower cost than today's is upgraded with
 * the password just checked.
 */
export async function login(deps: PartnersDeps, email: string, password: string): Promise<Partner> {
  const found = await findLoginByEmail(deps.pool, email.toLowerCase());
  if (!found) {
    await burnPasswordCheck(deps.hashing, password, deps.passwordCost);
    throw invalidCredentials();
  }
  const valid = await verifyPassword(deps.hashing, password, found.passwordHash);
  if (!valid || found.partner.status === 'rejected') throw invalidCredentials();
  if (needsRehash(found.passwordHash, deps.passwordCost)) {
    const upgraded = await hashPassword(deps.hashing, password, deps.passwordCost).catch(() => undefined);
    if (upgraded) await setPassword(deps.pool, found.partner.id, upgraded, { endSessions: false });
  }
  return found.partner;
}

function invalidCredentials(): AppError {
  return new AppError('INVALID_CREDENTIALS', 'The e-mail or password is wrong.');
}
