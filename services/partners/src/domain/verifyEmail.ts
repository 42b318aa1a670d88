import { withTransaction } from '@esim/postgres';
import { findPartnerByEmail, markEmailVerified } from '../store/partnerStore.js';
import { createAccountToken, spendAccountToken } from './accountTokens.js';
import type { PartnersDeps } from './deps.js';
import type { Partner } from './partner.js';
import { requestMail } from './sideEffects.js';

/** The link of the "application received" e-mail, followed: the address is proved and the application can be reviewed (§4). */
export function verifyEmail(deps: PartnersDeps, token: string): Promise<Partner> {
  return withTransaction(deps.pool, async (db) => {
    const partnerId = await spendAccountToken(db, token, 'verify_email');
    return markEmailVerified(db, partnerId);
  });
}

/**
 * A new verification link for an application that has not proved its
 * address yet. The caller always hears "accepted" (no enumeration): an
 * unknown or already verified address gets nothing. Earlier links keep
 * working until they expire.
 */
export async function resendVerification(deps: PartnersDeps, email: string): Promise<void> {
  await withTransaction(deps.pool, async (db) => {
    const partner = await findPartnerByEmail(db, email.trim().toLowerCase());
    if (!partner || partner.emailVerifiedAt !== null || partner.status !== 'pending') return;
    const token = await createAccountToken(db, partner.id, 'verify_email');
    await requestMail(db, deps.dataKey, { to: partner.email, template: 'email_verification', values: { name: partner.name }, secrets: { verifyToken: token } });
  });
}
