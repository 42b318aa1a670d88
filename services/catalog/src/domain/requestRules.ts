import { validationError } from '@esim/errors';
import { pageWindow, type PageWindow } from '@esim/postgres';
import { isCountryCode, isOneOf, networkGenerations, type NetworkGeneration } from '@esim/vocabulary';

/** Catalog lists default to 50 per page (contract §3). */
export const defaultLimit = 50;

export function parsePage(request: { page: number; limit: number } | undefined): PageWindow {
  return pageWindow(request, defaultLimit);
}

export function pageOf<T>(items: T[], { limit, offset }: PageWindow): T[] {
  return items.slice(offset, offset + limit);
}

/** '' means every country; otherwise an assigned ISO 3166-1 alpha-2 code, in either case. */
export function parseCountryFilter(value: string): string | undefined {
  if (value === '') return undefined;
  const code = value.toUpperCase();
  if (!/^[A-Z]{2}$/.test(code)) throw validationError([{ path: 'country', message: 'must be an ISO 3166-1 alpha-2 code, e.g. FR' }]);
  if (!isCountryCode(code)) throw validationError([{ path: 'country', message: `${code} is not an ISO 3166-1 alpha-2 country code` }]);
  return code;
}

/** Every entry an ISO 3166-1 alpha-2 code (either case); answered upper case. */
export function parseCoversAll(values: string[]): string[] {
  return values.map((value, index) => {
    const code = value.toUpperCase();
    if (!isCountryCode(code)) throw validationError([{ path: `coversAll.${index}`, message: 'must be an ISO 3166-1 alpha-2 code, e.g. FR' }]);
    return code;
  });
}

/** '' means any generation; otherwise one of the vocabulary's, in either case ("5g" is 5G). */
export function parseGeneration(value: string): NetworkGeneration | undefined {
  if (value === '') return undefined;
  const generation = value.toUpperCase();
  if (!isOneOf(networkGenerations, generation)) throw validationError([{ path: 'generation', message: `must be one of ${networkGenerations.join(', ')}` }]);
  return generation;
}
