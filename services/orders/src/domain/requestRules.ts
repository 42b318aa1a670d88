import { pageWindow, type PageWindow } from '@esim/postgres';
import { validationError, type FieldError } from '@esim/errors';
import { isAccountId } from '@esim/ids';
import { isOneOf, orderStatuses, tiers, type OrderStatus } from '@esim/vocabulary';
import { iccidPattern } from '../esims/esim.js';
import type { OrderRequest } from './order.js';

/**
 * The gateway validates partners' bodies (contract §7); these checks repeat
 * the rules the database relies on, so a caller's mistake is a
 * VALIDATION_ERROR naming the field, never a constraint violation (500).
 */
const clientRequestIdPattern = /^[A-Za-z0-9._:-]{1,64}$/;
const e164 = /^\+[1-9]\d{6,14}$/;
const emailShape = /^[^\s@]{1,64}@[^\s@]{1,255}$/;

export function checkOrderRequest(request: OrderRequest): OrderRequest {
  const errors: FieldError[] = [];
  // An account of either mode (contract §14): a test account's orders are keyed by `ptn_…_test`.
  if (!isAccountId(request.partnerId)) errors.push({ path: 'partnerId', message: 'must be a partner account id (ptn_… or ptn_…_test)' });
  if (!isOneOf(tiers, request.tier)) errors.push({ path: 'tier', message: `must be one of ${tiers.join(', ')}` });
  if (!clientRequestIdPattern.test(request.clientRequestId)) errors.push({ path: 'clientRequestId', message: 'must be 1–64 of A-Z a-z 0-9 . _ : -' });
  if (request.planId === '') errors.push({ path: 'planId', message: 'is required' });
  if (!emailShape.test(request.email)) errors.push({ path: 'email', message: 'must be an e-mail address' });
  if (!e164.test(request.phoneNumber)) errors.push({ path: 'phoneNumber', message: 'must be E.164, e.g. +33612345678' });
  if (request.iccid !== undefined && !iccidPattern.test(request.iccid)) errors.push({ path: 'iccid', message: 'must be an ICCID of 18–22 digits' });
  if (errors.length > 0) throw validationError(errors);
  return request;
}

/**
 * Which mode a list shows (contract §14): what the caller asked, else live
 * only for an operator's list of every partner (no test order in a live
 * view by omission), else the named account's own (already one mode).
 */
export function modeFilter(request: { partnerId: string; livemode?: boolean }): boolean | undefined {
  return request.livemode ?? (request.partnerId === '' ? true : undefined);
}

/** Order lists default to 20 per page (contract §3). */
export const defaultLimit = 20;

export function parsePage(request: { page?: number; limit?: number } | undefined): PageWindow {
  return pageWindow(request, defaultLimit);
}

/** undefined means every status; 'pending' is internal and so, to callers, not a status at all. */
export function parseStatusFilter(value: string | undefined): OrderStatus | undefined {
  if (value === undefined || value === '') return undefined;
  if (isOneOf(orderStatuses, value)) return value;
  throw validationError([{ path: 'status', message: `must be one of ${orderStatuses.join(', ')}` }]);
}
