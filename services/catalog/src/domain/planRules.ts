import { validationError, type FieldError } from '@esim/errors';
import { isCountryCode } from '@esim/vocabulary';
import type { PlanFields, PlanPatch } from './plan.js';

/**
 * Bounds on operator input. Money is capped at 10^8 cents (one million in
 * the currency) so that pricing (F × 120) stays exact in a JS number.
 */
export const limits = {
  nameLength: 200,
  regionLength: 100,
  skuLength: 64,
  countries: 250,
  dataMbMax: 10_485_760, // 10 TB
  validityDaysMax: 3_650,
  moneyMax: 100_000_000,
} as const;

/** Checks the fields present in `patch`; on create every field must be present. */
export function checkPlanFields(patch: PlanPatch, mode: 'create' | 'update'): void {
  const errors: FieldError[] = [];
  const required = (path: keyof PlanFields) => {
    if (mode === 'create' && patch[path] === undefined) errors.push({ path, message: 'is required' });
  };
  const text = (path: 'name' | 'region', max: number) => {
    const value = patch[path];
    if (typeof value === 'string' && (value.trim().length === 0 || value.length > max)) {
      errors.push({ path, message: `must be 1–${max} characters` });
    }
  };
  const integer = (path: keyof PlanFields, max: number) => {
    const value = patch[path];
    if (value !== undefined && (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0 || value > max)) {
      errors.push({ path, message: `must be an integer from 1 to ${max}` });
    }
  };

  for (const field of ['name', 'countries', 'dataMb', 'validityDays', 'floorPrice', 'retailPrice', 'supplierSku', 'supplierCost'] as const) {
    required(field);
  }
  text('name', limits.nameLength);
  text('region', limits.regionLength);
  if (patch.countries !== undefined) errors.push(...countryErrors(patch.countries));
  integer('dataMb', limits.dataMbMax);
  integer('validityDays', limits.validityDaysMax);
  integer('floorPrice', limits.moneyMax);
  integer('retailPrice', limits.moneyMax);
  integer('supplierCost', limits.moneyMax);
  if (patch.supplierSku !== undefined && !/^[\x21-\x7e]{1,64}$/.test(patch.supplierSku)) {
    errors.push({ path: 'supplierSku', message: `must be 1–${limits.skuLength} printable ASCII characters without spaces` });
  }
  if (errors.length > 0) throw validationError(errors);
}

function countryErrors(countries: string[]): FieldError[] {
  if (countries.length === 0) return [{ path: 'countries', message: 'must list at least one country' }];
  if (countries.length > limits.countries) return [{ path: 'countries', message: `must list at most ${limits.countries} countries` }];
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  countries.forEach((code, index) => {
    const path = `countries.${index}`;
    if (!/^[A-Z]{2}$/.test(code)) errors.push({ path, message: 'must be an upper-case ISO 3166-1 alpha-2 code, e.g. FR' });
    else if (!isCountryCode(code)) errors.push({ path, message: `${code} is not an ISO 3166-1 alpha-2 country code` });
    else if (seen.has(code)) errors.push({ path, message: `${code} is listed twice` });
    seen.add(code);
  });
  return errors;
}

/** Surrounding spaces in names are typing accidents, not content. */
export function normalizePatch(patch: PlanPatch): PlanPatch {
  const normalized: PlanPatch = { ...patch };
  if (typeof patch.name === 'string') normalized.name = patch.name.trim();
  if (typeof patch.region === 'string') normalized.region = patch.region.trim();
  return normalized;
}
