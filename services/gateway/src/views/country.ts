import { z } from 'zod';
import { isCountryCode } from '@esim/vocabulary';

/**
 * ISO 3166-1 alpha-2, any case in, upper case out. The list is the catalog's
 * (@esim/vocabulary), so a code valid here is valid there; an unassigned one
 * (XX, UK, Kosovo's user-assigned XK) is a validation error on the field,
 * whose path for a list element reads `countries.0`.
 */
export const countryCode = z
  .string()
  .regex(/^[A-Za-z]{2}$/, 'must be an ISO 3166-1 alpha-2 code, e.g. FR')
  .transform((code) => code.toUpperCase())
  .refine((code) => isCountryCode(code), 'is not an ISO 3166-1 country code');
