import { validationError, type FieldError } from '@esim/errors';
import { activationPolicies, isCountryCode, isOneOf, networkGenerations } from '@esim/vocabulary';
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
  throttleKbpsMax: 1_000_000,
  networks: 1_000,
  operatorLength: 100,
  profileTypeLength: 64,
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

  for (const field of ['name', 'countries', 'validityDays', 'floorPrice', 'retailPrice', 'supplierSku', 'supplierCost'] as const) {
    required(field);
  }
  // An unlimited plan has no data allowance: null is its value, not a missing one.
  if (patch.dataMb !== null) integer('dataMb', limits.dataMbMax);
  if (patch.fairUseMb !== null) integer('fairUseMb', limits.dataMbMax);
  if (patch.throttleKbps !== null) integer('throttleKbps', limits.throttleKbpsMax);
  for (const field of ['unlimited', 'voice', 'sms', 'kycRequired', 'topUpable', 'active'] as const) {
    if (patch[field] !== undefined && typeof patch[field] !== 'boolean') errors.push({ path: field, message: 'must be true or false' });
  }
  if (patch.activationPolicy !== undefined && !isOneOf(activationPolicies, patch.activationPolicy)) {
    errors.push({ path: 'activationPolicy', message: `must be one of ${activationPolicies.join(', ')}` });
  }
  if (patch.profileType !== undefined && patch.profileType !== null && !/^[\x21-\x7e]{1,64}$/.test(patch.profileType)) {
    errors.push({ path: 'profileType', message: `must be null or 1–${limits.profileTypeLength} printable ASCII characters without spaces` });
  }
  if (patch.networks !== undefined) errors.push(...networkErrors(patch.networks));
  text('name', limits.nameLength);
  text('region', limits.regionLength);
  if (patch.countries !== undefined) errors.push(...countryErrors(patch.countries));
  integer('validityDays', limits.validityDaysMax);
  integer('floorPrice', limits.moneyMax);
  integer('retailPrice', limits.moneyMax);
  integer('supplierCost', limits.moneyMax);
  if (patch.supplierSku !== undefined && !/^[\x21-\x7e]{1,64}$/.test(patch.supplierSku)) {
    errors.push({ path: 'supplierSku', message: `must be 1–${limits.skuLength} printable ASCII characters without spaces` });
  }
  if (errors.length > 0) throw validationError(errors);
}

/**
 * The rules that tie fields together, checked on the whole plan after a
 * create's defaults or a patch's merge: an unlimited plan has no `dataMb`
 * and has both a fair-use allowance and a throttled speed; a limited one has
 * `dataMb` and neither; each network is in a country the plan covers.
 */
export function checkPlanShape(plan: PlanFields): void {
  const errors: FieldError[] = [];
  if (plan.unlimited) {
    if (plan.dataMb !== null) errors.push({ path: 'dataMb', message: 'must be null for an unlimited plan' });
    if (plan.fairUseMb === null) errors.push({ path: 'fairUseMb', message: 'is required for an unlimited plan (the allowance at full speed)' });
    if (plan.throttleKbps === null) errors.push({ path: 'throttleKbps', message: 'is required for an unlimited plan (the speed after the fair-use allowance)' });
  } else {
    if (plan.dataMb === null) errors.push({ path: 'dataMb', message: 'is required unless the plan is unlimited' });
    if (plan.fairUseMb !== null) errors.push({ path: 'fairUseMb', message: 'must be null unless the plan is unlimited' });
    if (plan.throttleKbps !== null) errors.push({ path: 'throttleKbps', message: 'must be null unless the plan is unlimited' });
  }
  plan.networks.forEach((network, index) => {
    if (!plan.countries.includes(network.country)) {
      errors.push({ path: `networks.${index}.country`, message: `${network.country} is not one of the plan's countries` });
    }
  });
  if (errors.length > 0) throw validationError(errors);
}

function networkErrors(networks: PlanFields['networks']): FieldError[] {
  if (!Array.isArray(networks)) return [{ path: 'networks', message: 'must be a list' }];
  if (networks.length > limits.networks) return [{ path: 'networks', message: `must list at most ${limits.networks} networks` }];
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  networks.forEach((network, index) => {
    const path = `networks.${index}`;
    if (!/^[A-Z]{2}$/.test(network.country) || !isCountryCode(network.country)) {
      errors.push({ path: `${path}.country`, message: 'must be an upper-case ISO 3166-1 alpha-2 code, e.g. FR' });
    }
    const operator = network.operator;
    if (typeof operator !== 'string' || operator.trim().length === 0 || operator.length > limits.operatorLength) {
      errors.push({ path: `${path}.operator`, message: `must be 1–${limits.operatorLength} characters` });
    }
    const generations = network.generations;
    if (!Array.isArray(generations) || generations.length === 0) {
      errors.push({ path: `${path}.generations`, message: `must list at least one of ${networkGenerations.join(', ')}` });
    } else {
      generations.forEach((generation, at) => {
        if (!isOneOf(networkGenerations, generation)) errors.push({ path: `${path}.generations.${at}`, message: `must be one of ${networkGenerations.join(', ')}` });
      });
      if (new Set(generations).size !== generations.length) errors.push({ path: `${path}.generations`, message: 'lists a generation twice' });
    }
    const key = `${network.country}|${String(operator).trim().toLowerCase()}`;
    if (seen.has(key)) errors.push({ path, message: `${network.country} ${operator} is listed twice (one entry per country and operator)` });
    seen.add(key);
  });
  return errors;
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
  if (Array.isArray(patch.networks)) {
    const order = ['2G', '3G', '4G', '5G'];
    normalized.networks = patch.networks.map((network) => ({
      country: network.country,
      operator: typeof network.operator === 'string' ? network.operator.trim() : network.operator,
      generations: Array.isArray(network.generations) ? [...network.generations].sort((a, b) => order.indexOf(a) - order.indexOf(b)) : network.generations,
    }));
  }
  // Switching a plan's allowance kind clears what the other kind had, unless the same patch sets it.
  if (patch.unlimited === true && patch.dataMb === undefined) normalized.dataMb = null;
  if (patch.unlimited === false) {
    if (patch.fairUseMb === undefined) normalized.fairUseMb = null;
    if (patch.throttleKbps === undefined) normalized.throttleKbps = null;
  }
  return normalized;
}
