import { AppError } from '@esim/errors';
import { newId } from '@esim/ids';
import { pgErrorCode, withTransaction } from '@esim/postgres';
import { findPartnerByEmail, insertPartner } from '../store/partnerStore.js';
import type { PartnerRow } from '../store/rows.js';
import type { PartnersDeps } from './deps.js';
import { burnPasswordCheck, hashPassword, verifyPassword } from './passwords.js';
import { requestMail } from './sideEffects.js';

export interface Application {
  name: string;
  email: string;
  company: string;
  password: string;
  webhookUrl?: string | undefined;
}

/** A partner applies: the account starts `pending` and an "application received" e-mail is queued with it. */
export async function register(deps: PartnersDeps, application: Application): Promise<PartnerRow> {
  const email = application.email.toLowerCase();
  const passwordHash = await hashPassword(application.password, deps.passwordCost);
  try {
    return await withTransaction(deps.pool, async (db) => {
      const partner = await insertPartner(db, {
        id: newId('ptn'),
        name: application.name,
        email,
        company: application.company,
        password_hash: passwordHash,
        webhook_url: application.webhookUrl ?? null,
      });
      await requestMail(db, deps.dataKey, { to: email, template: 'application_received', values: { name: partner.name, company: partner.company } });
      return partner;
    });
  } catch (error) {
    if (pgErrorCode(error) === '23505') throw new AppError('EMAIL_ALREADY_REGISTERED', `An account already exists for ${email}.`);
    throw error;
  }
}

/**
 * Checks portal credentials. Unknown e-mail, wrong password and a rejected
 * application all answer the same, in about the same time.
 */
export async function login(deps: PartnersDeps, email: string, password: string): Promise<PartnerRow> {
  const partner = await findPartnerByEmail(deps.pool, email.toLowerCase());
  if (!partner) {
    await burnPasswordCheck(password, deps.passwordCost);
    throw invalidCredentials();
  }
  const valid = await verifyPassword(password, partner.password_hash);
  if (!valid || partner.status === 'rejected') throw invalidCredentials();
  return partner;
}

function invalidCredentials(): AppError {
  return new AppError('INVALID_CREDENTIALS', 'The e-mail or password is wrong.');
}
