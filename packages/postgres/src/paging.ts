import { validationError, type FieldError } from '@esim/errors';

/** Contract §3: `limit` 1–100; `page` any positive int32 (a page past the end is an empty page). */
export const maxPageLimit = 100;
const maxPage = 2_147_483_647;

/** The rows one page of a list covers, with the page and limit it was asked for. */
export interface PageWindow {
  page: number;
  limit: number;
  offset: number;
}

/**
 * The one paging rule of every service. proto3 sends 0 for an unset number,
 * so a 0 (or absent) page means the first and a 0 limit the list's default;
 * anything else out of range is a VALIDATION_ERROR naming the field. The
 * arithmetic is exact: int32 page × limit ≤ 100 stays far below 2^53.
 */
export function pageWindow(request: { page?: number; limit?: number } | undefined, defaultLimit: number): PageWindow {
  const page = request?.page || 1;
  const limit = request?.limit || defaultLimit;
  const errors: FieldError[] = [];
  if (!Number.isInteger(page) || page < 1 || page > maxPage) errors.push({ path: 'page', message: `must be an integer from 1 to ${maxPage}` });
  if (!Number.isInteger(limit) || limit < 1 || limit > maxPageLimit) errors.push({ path: 'limit', message: `must be an integer from 1 to ${maxPageLimit}` });
  if (errors.length > 0) throw validationError(errors);
  return { page, limit, offset: (page - 1) * limit };
}
