// Protects the one pricing formula every order is charged by: tiers pay 100/110/120 % of the floor, rounded half-up in integer cents.
import { describe, expect, it } from 'vitest';
import { AppError } from '@esim/errors';
import type { Tier } from '@esim/vocabulary';
import { priceForTier, parseTier } from '../src/domain/pricing.js';

/** The contract's formula, computed independently with bigint: (F × percent + 50) div 100. */
function reference(floor: number, percent: bigint): number {
  return Number((BigInt(floor) * percent + 50n) / 100n);
}

describe('priceForTier', () => {
  it.each([
    [1, 1, 1, 1],
    [3, 3, 3, 4],
    [4, 4, 4, 5],
    [5, 5, 6, 6],
    [9, 9, 10, 11],
    [10, 10, 11, 12],
    [15, 15, 17, 18],
    [749, 749, 824, 899],
    [750, 750, 825, 900],
    [995, 995, 1095, 1194],
    [100_000_000, 100_000_000, 110_000_000, 120_000_000],
  ])('when the floor is %i, then standard/premium/enterprise pay %i/%i/%i', (floor, standard, premium, enterprise) => {
    expect(priceForTier(floor, 'standard')).toBe(standard);
    expect(priceForTier(floor, 'premium')).toBe(premium);
    expect(priceForTier(floor, 'enterprise')).toBe(enterprise);
  });

  it('when a tier price lands on half a cent, then it rounds up (5 → 5.5 → 6), and below half it rounds down (4 → 4.4 → 4; 3 → 3.6 → 4)', () => {
    expect(priceForTier(5, 'premium')).toBe(6);
    expect(priceForTier(4, 'premium')).toBe(4);
    expect(priceForTier(5, 'enterprise')).toBe(6);
    expect(priceForTier(3, 'enterprise')).toBe(4);
  });

  it('when every floor from 1 to 100000 is priced, then each tier equals the bigint formula', () => {
    const percents: [Tier, bigint][] = [
      ['standard', 100n],
      ['premium', 110n],
      ['enterprise', 120n],
    ];
    for (const [tier, percent] of percents) {
      const mismatches: number[] = [];
      for (let floor = 1; floor <= 100_000; floor++) if (priceForTier(floor, tier) !== reference(floor, percent)) mismatches.push(floor);
      expect(mismatches, tier).toEqual([]);
    }
  });

  it('when the tier is unknown, then it is a VALIDATION_ERROR naming the tier field', () => {
    for (const tier of ['gold', '', 'Premium']) {
      const error = (() => {
        try {
          priceForTier(100, tier as Tier);
        } catch (caught) {
          return caught;
        }
      })();
      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ path: 'tier' }] });
    }
    expect(() => parseTier('toString')).toThrow(AppError);
  });
});
