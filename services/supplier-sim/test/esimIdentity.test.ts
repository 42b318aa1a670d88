// Protects the shape of what the supplier hands out: ICCIDs a device accepts (89…, 20 digits, Luhn-valid) and SGP.22 activation codes.
import { describe, expect, it } from 'vitest';
import { activationCodeOf, hasValidLuhn, luhnCheckDigit, newEsimProfile, newIccid, newMatchingId } from '../src/domain/esimIdentity.js';

describe('luhn', () => {
  it('when given the textbook numbers, then it computes their check digits', () => {
    expect(luhnCheckDigit('7992739871')).toBe(3);
    expect(luhnCheckDigit('411111111111111')).toBe(1);
    expect(hasValidLuhn('79927398713')).toBe(true);
    expect(hasValidLuhn('79927398710')).toBe(false);
    expect(hasValidLuhn('4539148803436467')).toBe(true);
    expect(hasValidLuhn('4539 1488 0343 6467')).toBe(false);
  });
});

describe('eSIM identity', () => {
  it('when an ICCID is generated, then it has 20 digits, starts with 89 and passes Luhn', () => {
    for (let i = 0; i < 200; i++) {
      const iccid = newIccid();
      expect(iccid).toMatch(/^89\d{18}$/);
      expect(hasValidLuhn(iccid)).toBe(true);
    }
  });

  it('when one digit of an ICCID changes, then Luhn rejects it', () => {
    const iccid = newIccid();
    const changed = `${iccid.slice(0, 5)}${(Number(iccid[5]) + 1) % 10}${iccid.slice(6)}`;
    expect(hasValidLuhn(changed)).toBe(false);
  });

  it('when a matching id is generated, then it is upper-case alphanumeric groups', () => {
    const ids = new Set(Array.from({ length: 100 }, () => newMatchingId()));
    expect(ids.size).toBe(100);
    for (const id of ids) expect(id).toMatch(/^[0-9A-Z]{2}-[0-9A-Z]{5}-[0-9A-Z]{5}$/);
  });

  it('when a profile is made, then its activation code is the SGP.22 LPA string of its address and matching id', () => {
    const profile = newEsimProfile('smdp.example.com');
    expect(profile.activationCode).toBe(`LPA:1$smdp.example.com$${profile.matchingId}`);
    expect(activationCodeOf('a.b', 'K2-3F9A1-7QX2P')).toBe('LPA:1$a.b$K2-3F9A1-7QX2P');
  });
});
