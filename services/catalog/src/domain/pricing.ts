import { AppError, validationError } from '@esim/errors';
import { isOneOf, tiers, type Tier } from '@esim/vocabulary';

/** Percent of the floor price each tier pays (contract §5). */
const tierPercent: Record<Tier, number> = { standard: 100, premium: 110, enterprise: 120 };

/**
 * The wholesale price a partner of `tier` pays for a plan whose floor price
 * is `floorPrice` cents: (F × percent + 50) div 100, i.e. rounded half-up to
 * a whole cent. Integer arithmetic only: floors are bounded (≤ 10^8 cents,
 * see planRules), so F × 120 + 50 stays far below 2^53 and is exact.
 */
export function priceForTier(floorPrice: number, tier: Tier): number {
  if (!Number.isSafeInteger(floorPrice) || floorPrice <= 0) {
    throw new AppError('INTERNAL', `floor price must be a positive integer, got ${floorPrice}`);
  }
  const percent = Object.hasOwn(tierPercent, tier) ? tierPercent[tier] : undefined;
  if (percent === undefined) throw invalidTier();
  return Math.floor((floorPrice * percent + 50) / 100);
}

/** Narrows a caller's tier string, rejecting anything else as the caller's mistake. */
export function parseTier(value: string): Tier {
  if (isOneOf(tiers, value)) return value;
  throw invalidTier();
}

function invalidTier(): AppError {
  return validationError([{ path: 'tier', message: `must be one of ${tiers.join(', ')}` }]);
}
