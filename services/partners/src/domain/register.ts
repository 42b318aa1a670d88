import { AppError } from '@esim/errors';
import { newId } from '@esim/ids';
import { pgErrorCode, withTransaction } from '@esim/postgres';
import { insertPartner } from '../store/partnerStore.js';
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
 * received" e-mail is queued with it. The gateway validates the request
 * fully; an application missing a field (any other caller, an empty
 * message) is a validation error here, never a database error.
 */
export async function register(deps: PartnersDeps, application: Application): Promise<Partner> {
  checkApplication(application);
  const email = application.email.toLowerCase();
  const passwordHash = await hashPassword(application.password, deps.passwordCost);
  try {
    return await withTransaction(deps.pool, async (db) => {
      const partner = await insertPartner(db, {
        id: newId('ptn'),
        name: application.name,
        email,
        company: application.company,
        passwordHash,
        webhookUrl: application.webhookUrl ?? null,
      });
      await requestMail(db, deps.dataKey, { to: email, template: 'application_received', values: { name: partner.name, company: partner.company } });
      return partner;
    });
  } catch (error) {
    if (pgErrorCode(error) === '23505') throw new AppError('EMAIL_ALREADY_REGISTERED', `An account already exists for ${email}.`);
    throw error;
  }
}
