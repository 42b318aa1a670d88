import { AppError, type ErrorCode } from '@esim/errors';
import { iccidPattern, isId, type IdPrefix } from '@esim/ids';

/**
 * An id that cannot name a resource answers like an unknown one (§3: 404,
 * never 400 or 500), without a call to the service that owns it.
 */
export function idOrNotFound(prefix: IdPrefix, code: ErrorCode & `${string}NOT_FOUND`, id: string): string {
  if (!isId(prefix, id)) throw new AppError(code, `No ${prefix === 'ord' ? 'order' : 'partner'} ${id.slice(0, 64)}.`);
  return id;
}

/** An ICCID is 18–22 digits (§3, @esim/ids); anything else names no eSIM: 404 ESIM_NOT_FOUND without asking the orders service. */
export { iccidPattern };

export function iccidOrNotFound(iccid: string): string {
  if (!iccidPattern.test(iccid)) throw new AppError('ESIM_NOT_FOUND', `No eSIM ${iccid.slice(0, 64)}.`);
  return iccid;
}
