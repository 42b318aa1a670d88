import { ulid } from 'ulid';

/** The type prefixes of contract §3; an id says what it names. */
export type IdPrefix = 'ptn' | 'key' | 'plan' | 'ord' | 'led' | 'evt' | 'dlv' | 'aud' | 'req' | 'mail';

/** `ptn_01jd4…`: a prefix and a lower-case ULID, so ids sort by creation time. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid().toLowerCase()}`;
}

/** True when `value` has the shape of an id with this prefix (used to answer 404 without a lookup). */
export function isId(prefix: IdPrefix, value: string): boolean {
  return value.length === prefix.length + 27 && value.startsWith(`${prefix}_`) && /^[0-9a-hjkmnp-tv-z]{26}$/.test(value.slice(prefix.length + 1));
}
