import { randomFillSync } from 'node:crypto';

/** The type prefixes of contract §3; an id says what it names. */
export type IdPrefix = 'ptn' | 'key' | 'plan' | 'ord' | 'led' | 'evt' | 'dlv' | 'aud' | 'req' | 'mail' | 'whe' | 'opr';

/** Crockford's base32, lower case (no i, l, o, u), as ULIDs spell it. */
const alphabet = '0123456789abcdefghjkmnpqrstvwxyz';
const twoTo40 = 2 ** 40;

/**
 * Random bytes are drawn 4 KiB at a time and handed out 10 per id: one
 * `randomFillSync` per 409 ids. (The `ulid` package called
 * `crypto.getRandomValues` once per character, 16 times an id, which cost
 * the gateway about a sixth of its CPU on cheap requests.)
 */
const pool = Buffer.allocUnsafe(4096);
let poolOffset = pool.length;

function fortyRandomBits(): number {
  if (poolOffset + 5 > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const value = pool[poolOffset]! * 2 ** 32 + pool.readUInt32BE(poolOffset + 1);
  poolOffset += 5;
  return value;
}

/** `value` (below 32^digits) in base32, `digits` characters, most significant first. */
function encode(value: number, digits: number): string {
  let text = '';
  for (let i = 0; i < digits; i += 1) {
    text = alphabet[value % 32]! + text;
    value = Math.floor(value / 32);
  }
  return text;
}

// The last id's time and randomness: ids made in the same millisecond count up from it.
let lastTime = -1;
let high = 0;
let low = 0;

/**
 * A lower-case ULID: 48 bits of milliseconds (10 characters), then 80 bits
 * of randomness (16). Within one millisecond, or when the clock steps back,
 * the previous id's randomness is incremented instead (ULID's monotonic
 * mode), so ids made by this process sort in the order they were made.
 */
function ulid(): string {
  const now = Date.now();
  if (now > lastTime) {
    lastTime = now;
    high = fortyRandomBits();
    low = fortyRandomBits();
  } else if (low + 1 < twoTo40) {
    low += 1;
  } else if (high + 1 < twoTo40) {
    low = 0;
    high += 1;
  } else {
    // 2^80 ids in one millisecond cannot happen; move to the next millisecond rather than repeat an id.
    lastTime += 1;
    high = fortyRandomBits();
    low = fortyRandomBits();
  }
  return encode(lastTime, 10) + encode(high, 8) + encode(low, 8);
}

/** `ptn_01jd4…`: a prefix and a lower-case ULID, so ids sort by creation time. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid()}`;
}

/** True when `value` has the shape of an id with this prefix (used to answer 404 without a lookup). */
export function isId(prefix: IdPrefix, value: string): boolean {
  return value.length === prefix.length + 27 && value.startsWith(`${prefix}_`) && /^[0-9a-hjkmnp-tv-z]{26}$/.test(value.slice(prefix.length + 1));
}

/** ICCIDs are 18–22 digits (contract §3); anything else names no eSIM. The one place this rule is written. */
export const iccidPattern = /^\d{18,22}$/;

/** True when `value` has the shape of an ICCID (used to answer 404 without a lookup). */
export function isIccid(value: string): boolean {
  return iccidPattern.test(value);
}

/**
 * Test mode (contract §14) is part of the owner's identity, not a flag beside
 * it. A partner `ptn_X` owns two accounts: `ptn_X` (live) and `ptn_X_test`
 * (test). The gateway turns a test key into the test account, and every
 * service keys its partner data (wallets, ledger, orders, eSIMs, events,
 * deliveries, idempotency keys) by that account id, so a query scoped to one
 * account cannot read the other mode's rows by omitting a filter: there is no
 * filter to omit. Where a whole mode must be picked out (admin lists, totals,
 * metrics), `livemodeOf` answers from the id alone.
 */
const testSuffix = '_test';

/** The account a partner's data of one mode belongs to: the partner id itself when live. */
export function accountIdOf(partnerId: string, livemode: boolean): string {
  return livemode ? partnerId : `${partnerId}${testSuffix}`;
}

/** True for a live account id (a plain `ptn_…`), false for a test account (`ptn_…_test`). */
export function livemodeOf(accountId: string): boolean {
  return !accountId.endsWith(testSuffix);
}

/** The partner an account belongs to, whichever its mode. */
export function partnerIdOf(accountId: string): string {
  return livemodeOf(accountId) ? accountId : accountId.slice(0, -testSuffix.length);
}

/** True when `value` names a partner account of either mode (used to answer 404 without a lookup). */
export function isAccountId(value: string): boolean {
  return isId('ptn', partnerIdOf(value));
}

/** The SQL pattern that matches test account ids, for `partner_id LIKE …` in admin-wide queries. */
export const testAccountSqlPattern = '%\\_test';
