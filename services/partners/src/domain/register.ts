import { AppError } from '@esim/errors';
import { newId } from '@esim/ids';
import { pgErrorCode, withTransaction, type PoolClient } from '@esim/postgres';
import { deletePartner, findPartnerByEmail, insertPartner } from '../store/partnerStore.js';
import { createAccountToken, tokenLifetimeMs } from './accountTokens.js';
import type { PartnersDeps } from './deps.js';
import type { Partner } from './partner.js';
import { checkApplication } from './partnerRules.js';
import { hashPassword } from './passwords.js';
import { requestMail } from './sideEffects.js';

export interface Application {
  name: string;
  email: string;
  company: string;
  password: string;
  webhookUrl?: string | undefined;
}

/**
 * A partner applies: the account starts `pending` and an "application
 * received" e-mail is queued with it, carrying the link that proves the
 * address (a single-use token, 24 hours). An address held by an application
 * that never proved it within those 24 hours is given to the new applicant:
 * the old application is removed, so nobody can squat an address they do not
 * own (§4). The gateway validates the request fully; an application missing
 * a field is a validation error here, never a database error.
 */
export async function register(deps: PartnersDeps, application: Application): Promise<Partner> {
  checkApplication(application);
  const email = application.email.toLowerCase();
  const passwordHash = await hashPassword(deps.hashing, application.password, deps.passwordCost);
  try {
    return await withTransaction(deps.pool, async (db) => {
      await releaseUnprovedAddress(db, email);
      const partner = await insertPartner(db, {
        id: newId('ptn'),
        name: application.name,
        email,
        company: application.company,
        passwordHash,
        webhookUrl: application.webhookUrl ?? null,
      });
      const token = await createAccountToken(db, partner.id, 'verify_email');
      await requestMail(db, deps.dataKey, {
        to: email,
        template: 'application_received',
        values: { name: partner.name, company: partner.company },
        secrets: { verifyToken: token },
      });
      return partner;
    });
  } catch (error) {
    if (pgErrorCode(error) === '23505') throw new AppError('EMAIL_ALREADY_REGISTERED', `An account already exists for ${email}.`);
    throw error;
  }
}

/** A pending application whose address was never proved within the token's lifetime gives the address up. */
async function releaseUnprovedAddress(db: PoolClient, email: string): Promise<void> {
  const existing = await findPartnerByEmail(db, email, { forUpdate: true });
  if (!existing || existing.status !== 'pending' || existing.emailVerifiedAt !== null) return;
  if (Date.now() - existing.createdAt.getTime() < tokenLifetimeMs.verify_email) return;
  await deletePartner(db, existing.id);
}
