import { AppError } from '@esim/errors';
import { withTransaction, type PoolClient } from '@esim/postgres';
import { findPartnerByEmail, findPasswordHash, markEmailVerified, setPassword } from '../store/partnerStore.js';
import { retireAccountTokens } from '../store/tokenStore.js';
import { createAccountToken, spendAccountToken } from './accountTokens.js';
import type { PartnersDeps } from './deps.js';
import { partnerActor, type Actor, type Partner } from './partner.js';
import { partnerNotFound } from './partnerRules.js';
import { hashPassword, verifyPassword } from './passwords.js';
import { audit, requestMail } from './sideEffects.js';

/**
 * "Forgot my password": a reset link (single use, 30 minutes) is e-mailed
 * when the address belongs to a partner that may log in; the caller always
 * hears "accepted", whoever it is (§4, no enumeration).
 */
export async function requestPasswordReset(deps: PartnersDeps, email: string): Promise<void> {
  await withTransaction(deps.pool, async (db) => {
    const partner = await findPartnerByEmail(db, email.trim().toLowerCase());
    if (!partner || partner.status === 'rejected') return;
    const token = await createAccountToken(db, partner.id, 'reset_password');
    await requestMail(db, deps.dataKey, { to: partner.email, template: 'password_reset', values: { name: partner.name }, secrets: { resetToken: token } });
  });
}

/**
 * The reset link followed with a new password: the token is spent, every
 * other reset link retired, every portal session ended (the session version
 * rises), and the change is e-mailed and audited. Following a link proves
 * the address too. Answers the partner, so the gateway can end its sessions.
 */
export async function confirmPasswordReset(deps: PartnersDeps, token: string, password: string, requestId = ''): Promise<Partner> {
  checkPassword(password, 'password');
  const passwordHash = await hashPassword(deps.hashing, password, deps.passwordCost);
  return withTransaction(deps.pool, async (db) => {
    const partnerId = await spendAccountToken(db, token, 'reset_password');
    await markEmailVerified(db, partnerId);
    return replacePassword(deps, db, partnerId, passwordHash, partnerActor(partnerId, requestId), 'partner.password_reset');
  });
}

/**
 * A partner changes its password from the portal, proving the current one
 * first: a wrong one is INVALID_CREDENTIALS (the gateway counts it as a
 * failed login). Every older portal session ends.
 */
export async function changePassword(
  deps: PartnersDeps,
  request: { partnerId: string; currentPassword: string; newPassword: string; requestId: string },
): Promise<Partner> {
  checkPassword(request.newPassword, 'newPassword');
  const stored = await findPasswordHash(deps.pool, request.partnerId);
  if (stored === undefined) throw partnerNotFound(request.partnerId);
  if (!(await verifyPassword(deps.hashing, request.currentPassword, stored))) {
    throw new AppError('INVALID_CREDENTIALS', 'The current password is wrong.');
  }
  const passwordHash = await hashPassword(deps.hashing, request.newPassword, deps.passwordCost);
  return withTransaction(deps.pool, (db) =>
    replacePassword(deps, db, request.partnerId, passwordHash, partnerActor(request.partnerId, request.requestId), 'partner.password_changed'),
  );
}

async function replacePassword(deps: PartnersDeps, db: PoolClient, partnerId: string, passwordHash: string, actor: Actor, action: string): Promise<Partner> {
  const partner = await setPassword(db, partnerId, passwordHash, { endSessions: true });
  await retireAccountTokens(db, partnerId, 'reset_password');
  await requestMail(db, deps.dataKey, { to: partner.email, template: 'password_changed', values: { name: partner.name } });
  await audit(db, actor, action, partnerId, { sessionVersion: partner.sessionVersion });
  return partner;
}

/** §4's password rule (12–128 characters), for callers other than the gateway. */
function checkPassword(password: string, path: string): void {
  if (password.length < 12 || password.length > 128) {
    throw new AppError('VALIDATION_ERROR', `${path}: must be 12–128 characters`, { errors: [{ path, message: 'must be 12–128 characters' }] });
  }
}
