import { validationError } from '@esim/errors';
import { isCountryCode } from './countries.js';

/** Catalog lists default to 50 per page (contract §3); callers may ask for 1–100. */
export const defaultLimit = 50;
export const maxLimit = 100;
/**
 * Any page the wire can carry (proto int32): a page past the end is an empty
 * page (contract §3), however far past; (page - 1) × limit stays exact.
 */
const maxPage = 2_147_483_647;

export interface Page {
  page: number;
  limit: number;
}

/** proto3 sends 0 for an unset number, so 0 means "the default"; anything else out of range is an error. */
export function parsePage(request: { page?: number; limit?: number } | undefined): Page {
  const page = request?.page || 1;
  const limit = request?.limit || defaultLimit;
  const errors = [];
  if (!Number.isInteger(page) || page < 1 || page > maxPage) errors.push({ path: 'page', message: `must be an integer from 1 to ${maxPage}` });
  if (!Number.isInteger(limit) || limit < 1 || limit > maxLimit) errors.push({ path: 'limit', message: `must be an integer from 1 to ${maxLimit}` });
  if (errors.length > 0) throw validationError(errors);
  return { page, limit };
}

export function pageOf<T>(items: T[], { page, limit }: Page): T[] {
  return items.slice((page - 1) * limit, page * limit);
}

/** '' means every country; otherwise an assigned ISO 3166-1 alpha-2 code, in either case. */
export function parseCountryFilter(value: string): string | undefined {
  if (value === '') return undefined;
  const code = value.toUpperCase();
  if (!/^[A-Z]{2}$/.test(code)) throw validationError([{ path: 'country', message: 'must be an ISO 3166-1 alpha-2 code, e.g. FR' }]);
  if (!isCountryCode(code)) throw validationError([{ path: 'country', message: `${code} is not an ISO 3166-1 alpha-2 country code` }]);
  return code;
}
