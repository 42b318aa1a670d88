import { pageWindow, type PageWindow } from '@esim/postgres';
import { AppError, validationError, type FieldError } from '@esim/errors';
import { isAccountId, isId } from '@esim/ids';

/**
 * Bounds on what callers send. The gateway validates partners' and
 * operators' input first; these checks keep the wallet safe on its own.
 */
export const limits = {
  /** Contract §6: one top-up or adjustment moves at most 10^8 cents. */
  movementMax: 100_000_000,
  /** An order price: tier pricing of the catalog's 10^8 floor stays well below. */
  orderPriceMax: 1_000_000_000,
  referenceLength: 100,
  textLength: 500,
  /** GetWallet's default, the partner view's 50 most recent entries. */
  recentEntries: 50,
  ledgerPageDefault: 20,
  pageLimitMax: 100,
  /** Any page proto int32 can carry: a page past the end is simply empty. */
  pageMax: 2_147_483_647,
} as const;

/** Collects field errors and throws them all at once, so one answer names every bad field. */
export class FieldChecks {
  private readonly errors: FieldError[] = [];

  /** 'ptn' names an account of either mode (`ptn_X` or its test account `ptn_X_test`, contract §14). */
  id(path: string, prefix: 'ptn' | 'ord', value: string): this {
    const valid = prefix === 'ptn' ? isAccountId(value) : isId(prefix, value);
    if (!valid) this.errors.push({ path, message: `must be a ${prefix}_ id` });
    return this;
  }

  integer(path: string, value: number, min: number, max: number): this {
    if (!Number.isSafeInteger(value) || value < min || value > max) this.errors.push({ path, message: `must be an integer from ${min} to ${max}` });
    return this;
  }

  nonZero(path: string, value: number, maxAbs: number): this {
    if (!Number.isSafeInteger(value) || value === 0 || Math.abs(value) > maxAbs) {
      this.errors.push({ path, message: `must be a non-zero integer from -${maxAbs} to ${maxAbs}` });
    }
    return this;
  }

  text(path: string, value: string, max: number, required: boolean): this {
    if ((required && value.trim().length === 0) || value.length > max) {
      this.errors.push({ path, message: required ? `must be 1–${max} characters, not blank` : `must be at most ${max} characters` });
    }
    return this;
  }

  done(): void {
    if (this.errors.length > 0) throw validationError(this.errors);
  }
}

export const check = () => new FieldChecks();

/** Ledger pages (contract §3 paging, the ledger's default size). */
export function parsePage(request: { page?: number; limit?: number } | undefined): PageWindow {
  return pageWindow(request, limits.ledgerPageDefault);
}

/** What an operator or the orders service is told when money would go below zero. */
export function insufficientBalance(detail: string): AppError {
  return new AppError('INSUFFICIENT_BALANCE', detail);
}
