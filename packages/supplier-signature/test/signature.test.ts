import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseSignature, sign, verify } from '../src/index.js';

const secret = 'whsec-test-secret';
const body = '{"id":"ntf_1","type":"esim.installed","occurredAt":"2026-01-01T00:00:00.000Z","iccid":"8933000000000000001"}';
const now = 1_800_000_000;

describe('supplier signature', () => {
  it('is t=<seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">', () => {
    const expected = createHmac('sha256', secret).update(`${now}.${body}`).digest('hex');
    expect(sign(secret, body, now)).toBe(`t=${now},v1=${expected}`);
  });

  it('signs bytes and strings alike', () => {
    expect(sign(secret, Buffer.from(body), now)).toBe(sign(secret, body, now));
    expect(verify(secret, sign(secret, body, now), Buffer.from(body), now)).toBe(true);
  });

  it('verifies its own signature within the tolerance, either side of now', () => {
    expect(verify(secret, sign(secret, body, now), body, now)).toBe(true);
    expect(verify(secret, sign(secret, body, now - 300), body, now)).toBe(true);
    expect(verify(secret, sign(secret, body, now + 300), body, now)).toBe(true);
  });

  it('refuses a stale or future timestamp', () => {
    expect(verify(secret, sign(secret, body, now - 301), body, now)).toBe(false);
    expect(verify(secret, sign(secret, body, now + 301), body, now)).toBe(false);
    expect(verify(secret, sign(secret, body, now - 60), body, now, 30)).toBe(false);
  });

  it('refuses another secret, another body, a changed timestamp', () => {
    const header = sign(secret, body, now);
    expect(verify('other', header, body, now)).toBe(false);
    expect(verify(secret, header, `${body} `, now)).toBe(false);
    expect(verify(secret, header.replace(`t=${now}`, `t=${now + 1}`), body, now)).toBe(false);
  });

  it('refuses missing and malformed headers', () => {
    const v1 = sign(secret, body, now).split(',')[1]!;
    for (const header of [undefined, '', 'garbage', `t=${now}`, v1, `t=abc,${v1}`, `t=${now},v1=XYZ`, `t=${now},v1=${'a'.repeat(63)}`, `t=${now},t=${now},${v1}`, `t=-1,${v1}`]) {
      expect(verify(secret, header, body, now), String(header)).toBe(false);
    }
    expect(verify('', sign('', body, now), body, now)).toBe(false);
  });

  it('accepts one matching v1 among several (rotation) and ignores unknown schemes', () => {
    const good = sign(secret, body, now);
    const withOld = `${good},v1=${'0'.repeat(64)},v0=whatever`;
    expect(verify(secret, withOld, body, now)).toBe(true);
    expect(parseSignature(withOld)?.signatures).toHaveLength(2);
  });
});
