import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import type { PartnerStatus, Scope, Tier } from '@esim/vocabulary';

/**
 * The partner API key, in one place: the partners service issues keys with
 * it and the gateway verifies them with it, so the two can never disagree on
 * the format or the hash.
 *
 * A key is `sk_live_<prefix>_<secret>`, or `sk_test_<prefix>_<secret>` for
 * a test key (contract §14: same form and rules, the mode in the marker). The
 * prefix (12 of [a-z0-9]) is the public lookup id, stored and shown in key
 * metadata, unique across both modes; the secret (40 of [A-Za-z0-9], ~238
 * bits) is never stored, only its SHA-256.
 */
const markers = ['sk_live_', 'sk_test_'] as const;
const keyPattern = /^sk_(live|test)_([a-z0-9]{12})_([A-Za-z0-9]{32,128})$/;
const prefixLength = 12;
const secretLength = 40;
const prefixAlphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
const secretAlphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * What verifying a key needs, as the partners service looks it up and the
 * gateway caches it: the secret's hash, the key's state and its partner's.
 */
export interface KeyCredential {
  keyId: string;
  /** The partner that holds the key (never a test account id: the gateway derives that from `livemode`). */
  partnerId: string;
  /** False for a test key: it acts on the partner's test account (@esim/ids accountIdOf). */
  livemode: boolean;
  /** Hex SHA-256 of the key's secret part (checked with `secretMatches`). */
  secretHash: string;
  scopes: Scope[];
  revoked: boolean;
  partnerStatus: PartnerStatus;
  tier: Tier;
}

export interface KeyParts {
  prefix: string;
  secret: string;
}

/** A parsed API key: its parts and its mode (`sk_live_` true, `sk_test_` false). */
export interface ParsedKey extends KeyParts {
  livemode: boolean;
}

export function formatKey(prefix: string, secret: string, livemode = true): string {
  const key = `${livemode ? markers[0] : markers[1]}${prefix}_${secret}`;
  if (!keyPattern.test(key)) throw new Error('formatKey: prefix or secret outside the key format');
  return key;
}

/**
 * The prefix and secret of a well-formed key, or undefined. Secrets of 32 to
 * 128 characters are accepted (32 is still ≥ 190 bits), so longer keys can be
 * issued later without touching verifiers.
 */
export function parseKey(key: string): ParsedKey | undefined {
  const match = keyPattern.exec(key);
  return match ? { prefix: match[2]!, secret: match[3]!, livemode: match[1] === 'live' } : undefined;
}

/** True for anything meant as one of our keys of either mode, well-formed or not (to tell a key sent to the wrong door). */
export function looksLikeKey(value: string): boolean {
  return markers.some((marker) => value.startsWith(marker));
}

/**
 * A fresh key of the given mode; the full key exists only in this value, to
 * be e-mailed (live) or answered (test, §14) once.
 */
export function generateKey(livemode = true): ParsedKey & { key: string } {
  const prefix = randomString(prefixAlphabet, prefixLength);
  const secret = randomString(secretAlphabet, secretLength);
  return { key: formatKey(prefix, secret, livemode), prefix, secret, livemode };
}

/** SHA-256 is right here: the secret has ≥ 190 bits of entropy, so no stretching is needed. Hex, as stored. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Compares in constant time; a malformed stored hash matches nothing. */
export function secretMatches(secret: string, hashHex: string): boolean {
  const actual = createHash('sha256').update(secret, 'utf8').digest();
  const expected = Buffer.from(hashHex, 'hex');
  return expected.length === actual.length && timingSafeEqual(actual, expected);
}

/** Uniform over the alphabet: randomInt has no modulo bias. */
function randomString(alphabet: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

/**
 * The operator token of §10, `op_<prefix>_<secret>`: the form and storage
 * rules of the API key (prefix 12 of [a-z0-9] for the lookup, secret 40 of
 * [A-Za-z0-9], only its SHA-256 stored, compared with `secretMatches`).
 */
const operatorTokenPattern = /^op_([a-z0-9]{12})_([A-Za-z0-9]{32,128})$/;

export function parseOperatorToken(token: string): KeyParts | undefined {
  const match = operatorTokenPattern.exec(token);
  return match ? { prefix: match[1]!, secret: match[2]! } : undefined;
}

/** A fresh operator token; it exists in full only in this value, to be e-mailed once. */
export function generateOperatorToken(): KeyParts & { token: string } {
  const prefix = randomString(prefixAlphabet, prefixLength);
  const secret = randomString(secretAlphabet, secretLength);
  return { token: `op_${prefix}_${secret}`, prefix, secret };
}
