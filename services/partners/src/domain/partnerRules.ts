import { AppError, validationError, type FieldError } from '@esim/errors';
import { isOneOf, partnerStatuses, scopes, tiers, type PartnerStatus, type Scope, type Tier } from '@esim/vocabulary';
import type { Partner } from './partner.js';

/**
 * The gateway validated the request's shape; these guard the vocabularies the
 * domain cannot take on trust from any caller, with the same wording the
 * other services use.
 */
export function parseTier(value: string): Tier {
  if (isOneOf(tiers, value)) return value;
  throw validationError([{ path: 'tier', message: `must be one of ${tiers.join(', ')}` }]);
}

/** '' means every status. */
export function parseStatusFilter(value: string): PartnerStatus | undefined {
  if (value === '') return undefined;
  if (isOneOf(partnerStatuses, value)) return value;
  throw validationError([{ path: 'status', message: `must be one of ${partnerStatuses.join(', ')}` }]);
}

/** At least one scope, each known, none twice (the api_keys CHECK holds the same list). */
export function parseScopes(values: string[]): Scope[] {
  const errors: FieldError[] = [];
  if (values.length === 0) errors.push({ path: 'scopes', message: 'must name at least one scope' });
  values.forEach((value, index) => {
    if (!isOneOf(scopes, value)) errors.push({ path: `scopes.${index}`, message: `must be one of ${scopes.join(', ')}` });
    else if (values.indexOf(value) !== index) errors.push({ path: `scopes.${index}`, message: `${value} is listed twice` });
  });
  if (errors.length > 0) throw validationError(errors);
  return values as Scope[];
}

/** The shape of an e-mail address, as loose as the gateway's zod check is strict: one @, a dot in the domain. */
const emailShape = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * The gateway validates a registration first (same bounds), but any caller
 * that reaches the port can send an empty message: it is a validation
 * error naming every field, not a failure deeper down (issue #17).
 */
export function checkApplication(application: { name: string; email: string; company: string; password: string }): void {
  const errors: FieldError[] = [];
  const text = (path: 'name' | 'company') => {
    const length = application[path].trim().length;
    if (length < 1 || length > 200) errors.push({ path, message: 'must be 1–200 characters' });
  };
  text('name');
  if (!emailShape.test(application.email) || application.email.length > 254) errors.push({ path: 'email', message: 'must be a valid e-mail address' });
  text('company');
  if (application.password.length < 12 || application.password.length > 128) errors.push({ path: 'password', message: 'must be 12–128 characters' });
  if (errors.length > 0) throw validationError(errors);
}

export function requireStatus(partner: Partner, allowed: readonly PartnerStatus[], action: string): void {
  if (!allowed.includes(partner.status)) {
    throw new AppError('INVALID_STATE', `Cannot ${action} a partner that is ${partner.status}.`);
  }
}

/** Keys and webhook secrets belong to partners that were approved (suspension keeps them). */
export function requireKeyHolder(partner: Partner, action: string): void {
  if (partner.status !== 'approved' && partner.status !== 'suspended') {
    throw new AppError('INVALID_STATE', `Cannot ${action} for a partner that is ${partner.status}.`);
  }
}

/**
 * Test mode (§14) opens at registration, so a partner integrates before
 * approval: pending and approved partners may use it; a rejected or
 * suspended one may not (ACCOUNT_NOT_ACTIVE, as its keys are refused).
 */
export function requireTestModeHolder(partner: Partner): void {
  if (partner.status === 'rejected' || partner.status === 'suspended') {
    throw new AppError('ACCOUNT_NOT_ACTIVE', `The partner account is ${partner.status}; test mode is closed to it.`);
  }
}

/** §14: at most this many unrevoked test keys per partner. */
export const maxActiveTestKeys = 5;

export function partnerNotFound(id: string): AppError {
  return new AppError('PARTNER_NOT_FOUND', `No partner ${id}.`);
}
