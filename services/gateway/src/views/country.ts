import countries from 'i18n-iso-countries';
import { z } from 'zod';

/** ISO 3166-1 alpha-2, any case in, upper case out; a code that names no country is a validation error. */
export const countryCode = z
  .string()
  .regex(/^[A-Za-z]{2}$/, 'must be an ISO 3166-1 alpha-2 code, e.g. FR')
  .transform((code) => code.toUpperCase())
  .refine((code) => countries.isValid(code), 'is not an ISO 3166-1 country code');
