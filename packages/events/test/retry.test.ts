// Protects the one retry policy of every consumer: exponential from firstMs, capped at maxMs, and jittered downwards only.
import { retryDelayMs, shortestRetryDelayMs } from '@esim/events';
import { describe, expect, it } from 'vitest';

describe('retry policy', () => {
  it('when there is no jitter, then the n-th redelivery waits firstMs·2^(n−1), capped at maxMs', () => {
    const policy = { firstMs: 1_000, maxMs: 60_000, jitter: 0 };
    expect([1, 2, 3, 4, 5, 6, 7, 8, 50, 5_000].map((n) => retryDelayMs(policy, n))).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000, 60_000]);
  });

  it('when jitter is left to its default, then each delay falls between 80 % and 100 % of the schedule, and they differ', () => {
    const policy = { firstMs: 1_000, maxMs: 60_000 };
    const delays = Array.from({ length: 200 }, () => retryDelayMs(policy, 3));
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(3_200);
    expect(Math.max(...delays)).toBeLessThanOrEqual(4_000);
    expect(new Set(delays).size).toBeGreaterThan(10);
  });

  it('when the random draw is at its extremes, then the delay is the schedule or the schedule minus all the jitter', () => {
    const policy = { firstMs: 500, maxMs: 10_000, jitter: 0.5 };
    expect(retryDelayMs(policy, 2, () => 0)).toBe(1_000);
    expect(retryDelayMs(policy, 2, () => 1)).toBe(500);
    expect(shortestRetryDelayMs(policy, 2)).toBe(500);
  });
});
