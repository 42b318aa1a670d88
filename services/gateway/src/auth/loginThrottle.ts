import type { FastifyReply } from 'fastify';
import { AppError } from '@esim/errors';
import type { RateLimit } from './rateLimits.js';

/**
 * The failed-login budgets of §3: 10 per e-mail and 100 per source address
 * per 15 minutes. Each attempt is counted BEFORE the password is checked
 * (an atomic Redis increment), so concurrent attempts cannot get more
 * evaluations than the budget; an attempt that turns out not to be a failure
 * (a success, or a 503 because the password checks are saturated) gets its
 * point back. A wrong current password on a password change counts the same.
 */
export class LoginThrottle {
  constructor(
    private readonly perEmail: RateLimit,
    private readonly perAddress: RateLimit,
  ) {}

  async attempt<T>(who: { email: string; address: string }, reply: FastifyReply, check: () => Promise<T>): Promise<T> {
    const email = who.email.toLowerCase();
    await this.perEmail.countAttempt(email, reply, 'Too many failed logins for this e-mail; retry later.');
    try {
      await this.perAddress.countAttempt(who.address, reply, 'Too many failed logins from this address; retry later.');
    } catch (error) {
      await this.perEmail.refund(email);
      throw error;
    }
    try {
      const result = await check();
      await Promise.all([this.perEmail.refund(email), this.perAddress.refund(who.address)]);
      return result;
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'INVALID_CREDENTIALS')) {
        await Promise.all([this.perEmail.refund(email), this.perAddress.refund(who.address)]).catch(() => undefined);
      }
      throw error;
    }
  }
}
