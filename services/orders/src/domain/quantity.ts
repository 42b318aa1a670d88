import { validationError } from '@esim/errors';

/** A group order's bounds (contract §7): one to fifty eSIMs of one plan. */
export const quantityMax = 50;

/**
 * The number of eSIMs asked for: absent (0 on the wire) is one; a top-up
 * (iccid) adds a bundle to one eSIM, so it takes no quantity at all.
 */
export function checkQuantity(quantity: number | undefined, iccid: string | undefined): number {
  if (quantity === undefined || quantity === 0) return 1;
  if (!Number.isSafeInteger(quantity) || quantity < 1 || quantity > quantityMax) {
    throw validationError([{ path: 'quantity', message: `must be a whole number from 1 to ${quantityMax}` }]);
  }
  if (iccid !== undefined) throw validationError([{ path: 'quantity', message: 'cannot be combined with iccid: a top-up adds one bundle to one eSIM' }]);
  return quantity;
}
