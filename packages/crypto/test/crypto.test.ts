// Protects sealed secrets (webhook secrets at rest, secrets in mail requests): only the right key opens them, any tampering is detected, and the data key must be 32 bytes.
import { randomBytes } from 'node:crypto';
import { generateDataKey, open, parseDataKey, seal } from '@esim/crypto';
import { describe, expect, it } from 'vitest';

const key = parseDataKey(generateDataKey());

/** Flips one bit in one base64 part of a sealed value: 1 = iv, 2 = tag, 3 = ciphertext. */
function tamper(sealed: string, part: 1 | 2 | 3): string {
  const parts = sealed.split('.');
  const bytes = Buffer.from(parts[part]!, 'base64');
  bytes[0] = bytes[0]! ^ 0x01;
  parts[part] = bytes.toString('base64');
  return parts.join('.');
}

describe('seal and open', () => {
  it('when a value is sealed and opened with the same key, then it comes back unchanged, unicode included', () => {
    for (const plaintext of ['whsec_abc', 'sk_live_abcdefabcdef_' + 'x'.repeat(40), 'naïve – ✓ 日本', '']) {
      expect(open(key, seal(key, plaintext))).toBe(plaintext);
    }
  });

  it('when the same value is sealed twice, then the two sealed values differ and neither contains the plaintext', () => {
    const plaintext = 'whsec_same-secret-twice';
    const [a, b] = [seal(key, plaintext), seal(key, plaintext)];
    expect(a).not.toBe(b);
    expect(a).toMatch(/^v1\.[A-Za-z0-9+/=]+\.[A-Za-z0-9+/=]+\.[A-Za-z0-9+/=]+$/);
    for (const sealed of [a, b]) {
      expect(sealed).not.toContain(plaintext);
      expect(Buffer.from(sealed.split('.')[3]!, 'base64').toString('utf8')).not.toContain(plaintext);
    }
  });

  for (const [label, part] of [['iv', 1], ['tag', 2], ['ciphertext', 3]] as const) {
    it(`when one bit of the ${label} is changed, then opening fails`, () => {
      expect(() => open(key, tamper(seal(key, 'whsec_secret'), part))).toThrow();
    });
  }

  it('when the value is opened with another key, then opening fails', () => {
    const other = parseDataKey(generateDataKey());
    expect(() => open(other, seal(key, 'whsec_secret'))).toThrow();
  });

  for (const malformed of ['', 'whsec_plain', 'v2.a.b.c', 'v1.a.b', 'v1..tag.ct']) {
    it(`when "${malformed}" is opened, then it is refused as not a sealed value`, () => {
      expect(() => open(key, malformed)).toThrow('not a sealed value');
    });
  }
});

describe('parseDataKey', () => {
  it('when the key is base64 of 32 bytes, then it is those bytes', () => {
    const raw = randomBytes(32);
    expect(parseDataKey(raw.toString('base64')).equals(raw)).toBe(true);
  });

  for (const [label, text] of [
    ['31 bytes', randomBytes(31).toString('base64')],
    ['33 bytes', randomBytes(33).toString('base64')],
    ['empty', ''],
    ['a passphrase', 'correct horse battery staple'],
  ] as const) {
    it(`when the key is ${label}, then it is refused naming DATA_ENCRYPTION_KEY`, () => {
      expect(() => parseDataKey(text)).toThrow(/DATA_ENCRYPTION_KEY must be base64 of 32 bytes/);
    });
  }
});

describe('associated data and the tag length (#24)', () => {
  it('when a value is sealed for a record, then it opens only for that record, and not without one', () => {
    const sealed = seal(key, 'whsec_secret', 'webhook:ptn_a');
    expect(sealed).toMatch(/^v2\./);
    expect(open(key, sealed, 'webhook:ptn_a')).toBe('whsec_secret');
    expect(() => open(key, sealed, 'webhook:ptn_b')).toThrow();
    expect(() => open(key, sealed)).toThrow('not a sealed value');
  });

  it('when the tag is truncated to fewer than 16 bytes, then opening refuses it (GCM would otherwise check fewer bits)', () => {
    for (const sealed of [seal(key, 'whsec_secret'), seal(key, 'whsec_secret', 'r')]) {
      const parts = sealed.split('.');
      parts[2] = Buffer.from(parts[2]!, 'base64').subarray(0, 4).toString('base64');
      expect(() => open(key, parts.join('.'), 'r')).toThrow('not a sealed value');
    }
  });

  it('when an old v1 value is opened, then it still opens (until it is re-sealed)', () => {
    expect(open(key, seal(key, 'legacy'))).toBe('legacy');
  });
});
