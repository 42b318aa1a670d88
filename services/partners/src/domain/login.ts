import { AppError } from '@esim/errors';
import { findLoginByEmail } from '../store/partnerStore.js';
import type { PartnersDeps } from './deps.js';
import type { Partner } from './partner.js';
import { burnPasswordCheck, verifyPassword } from './passwords.js';

/**
 * Checks portal credentials; the gateway issues the token. Unknown e-mail,
 * wrong password and a rejected application all answer the same, in about
 * the same time.
 */
export async function login(deps: PartnersDeps, email: string, password: string): Promise<Partner> {
  const found = await findLoginByEmail(deps.pool, email.toLowerCase());
  if (!found) {
    await burnPasswordCheck(password, deps.passwordCost);
    throw invalidCredentials();
  }
  const valid = await verifyPassword(password, found.passwordHash);
  if (!valid || found.partner.status === 'rejected') throw invalidCredentials();
  return found.partner;
}

function invalidCredentials(): AppError {
  return new AppError('INVALID_CREDENTIALS', 'The e-mail or password is wrong.');
}
