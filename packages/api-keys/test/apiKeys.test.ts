// Protects the API key format and hash that the partners service issues with and the gateway verifies with.
import { describe, expect, it } from 'vitest';
import { formatKey, generateKey, hashSecret, looksLikeKey, parseKey, secretMatches } from '../src/index.js';

describe('formatKey and parseKey', () => {
  it('when a generated key is parsed, then its prefix and secret come back unchanged', () => {
    const { key, prefix, secret } = generateKey();
    expect(key).toBe(`sk_live_${prefix}_${secret}`);
    expect(parseKey(key)).toEqual({ prefix, secret, livemode: true });
    expect(formatKey(prefix, secret)).toBe(key);
  });

  it('when a test key is generated and parsed, then it has the sk_test_ marker, the same parts rules, and livemode false', () => {
    const { key, prefix, secret, livemode } = generateKey(false);
    expect(livemode).toBe(false);
    expect(key).toBe(`sk_test_${prefix}_${secret}`);
    expect(prefix).toMatch(/^[a-z0-9]{12}$/);
    expect(secret).toMatch(/^[A-Za-z0-9]{40}$/);
    expect(parseKey(key)).toEqual({ prefix, secret, livemode: false });
    expect(formatKey(prefix, secret, false)).toBe(key);
    expect(looksLikeKey(key)).toBe(true);
    expect(looksLikeKey('sk_test_short')).toBe(true);
  });

  it('when a test key breaks the live rules (short secret, upper-case prefix, other mode word), then parseKey answers undefined', () => {
    expect(parseKey(`sk_test_abcdefabcdef_${'A'.repeat(31)}`)).toBeUndefined();
    expect(parseKey(`sk_test_ABCDEFABCDEF_${'A'.repeat(40)}`)).toBeUndefined();
    expect(parseKey(`sk_demo_abcdefabcdef_${'A'.repeat(40)}`)).toBeUndefined();
  });

  const malformed: Array<[string, string]> = [
    ['an empty string', ''],
    ['a key that is too short', 'sk_live_tooshort'],
    ['a key of another form', 'pk_test_abcdefabcdef_ABCDEFGHIJKLMNOPQRSTUVWXYZ123456'],
    ['an upper-case prefix', `sk_live_ABCDEFABCDEF_${'A'.repeat(40)}`],
    ['an 11-character prefix', `sk_live_abcdefabcde_${'A'.repeat(40)}`],
    ['a 31-character secret', `sk_live_abcdefabcdef_${'A'.repeat(31)}`],
    ['a 129-character secret', `sk_live_abcdefabcdef_${'A'.repeat(129)}`],
    ['a secret with a symbol', `sk_live_abcdefabcdef_${'A'.repeat(39)}-`],
    ['surrounding spaces', ` sk_live_abcdefabcdef_${'A'.repeat(40)} `],
    ['a trailing newline', `sk_live_abcdefabcdef_${'A'.repeat(40)}\n`],
    ['a portal JWT', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwdG5fMSJ9.c2ln'],
  ];
  for (const [label, key] of malformed) {
    it(`when the key is ${label}, then parseKey answers undefined`, () => {
      expect(parseKey(key)).toBeUndefined();
    });
  }

  it('when a malformed key carries the key marker, then it still looks like a key; a JWT does not', () => {
    expect(looksLikeKey('sk_live_tooshort')).toBe(true);
    expect(looksLikeKey(generateKey().key)).toBe(true);
    expect(looksLikeKey('eyJhbGciOiJIUzI1NiJ9.e30.c2ln')).toBe(false);
  });

  it('when formatKey is given parts outside the format, then it throws', () => {
    expect(() => formatKey('short', 'A'.repeat(40))).toThrow(/format/);
    expect(() => formatKey('abcdefabcdef', 'has space'.padEnd(40, 'x'))).toThrow(/format/);
  });
});

describe('generateKey', () => {
  it('when many keys are generated, then each secret carries at least 190 bits and none repeats', () => {
    const keys = Array.from({ length: 2_000 }, () => generateKey());
    const secrets = keys.map((k) => k.secret);
    const alphabet = new Set(secrets.join(''));
    // 40 characters drawn uniformly from 62 symbols: 40 × log2(62) ≈ 238 bits.
    for (const secret of secrets) expect(secret).toMatch(/^[A-Za-z0-9]{40}$/);
    expect(alphabet.size).toBe(62);
    expect(secrets[0]!.length * Math.log2(alphabet.size)).toBeGreaterThanOrEqual(190);
    expect(new Set(secrets).size).toBe(secrets.length);
    expect(new Set(keys.map((k) => k.prefix)).size).toBe(keys.length);
  });
});

describe('hashSecret and secretMatches', () => {
  it('when the secret is hashed, then it is the hex SHA-256 the partners schema stores', () => {
    expect(hashSecret('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('when the right secret is compared with its hash, then it matches', () => {
    const { secret } = generateKey();
    expect(secretMatches(secret, hashSecret(secret))).toBe(true);
  });

  it('when another secret is compared, then it does not match', () => {
    const { secret } = generateKey();
    expect(secretMatches(`${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`, hashSecret(secret))).toBe(false);
  });

  for (const [label, stored] of [
    ['empty', ''],
    ['truncated', hashSecret('abc').slice(0, 62)],
    ['not hex', 'z'.repeat(64)],
  ] as const) {
    it(`when the stored hash is ${label}, then nothing matches and nothing throws`, () => {
      expect(secretMatches('abc', stored)).toBe(false);
    });
  }
});
