// Protects the retry schedule's bounds: backoff doubles up to its cap, JetStream never gives up before the window has passed, and redelivery never races a call still within its timeout.
import { describe, expect, it } from 'vitest';
import { retryPolicy, retryWindowOver } from '../src/domain/retryPolicy.js';

const production = retryPolicy({ windowMs: 900_000, baseMs: 1_000, maxMs: 60_000, supplierTimeoutMs: 10_000 });

/** Sums the delays JetStream waits between the first `deliveries` deliveries. */
function delaysBefore(policy: ReturnType<typeof retryPolicy>, deliveries: number): number {
  let totalMs = 0;
  for (let n = 1; n < deliveries; n++) totalMs += policy.retryDelayMs(n);
  return totalMs;
}

describe('retry policy', () => {
  it('when deliveries fail, then the delay doubles from the base and stops at the max', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 50, 5_000].map(production.retryDelayMs)).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000, 60_000]);
  });

  it.each([
    ['the defaults', { windowMs: 900_000, baseMs: 1_000, maxMs: 60_000 }],
    ['tiny delays over an hour', { windowMs: 3_600_000, baseMs: 10, maxMs: 10 }],
    ['a slow doubling', { windowMs: 3_600_000, baseMs: 50, maxMs: 500 }],
  ])('when configured with %s, then maxDeliver is at least 1000 and outlasts the window even if every call fails at once', (_, options) => {
    const policy = retryPolicy({ ...options, supplierTimeoutMs: 10_000 });
    expect(policy.maxDeliver).toBeGreaterThanOrEqual(1_000);
    expect(delaysBefore(policy, policy.maxDeliver)).toBeGreaterThanOrEqual(options.windowMs);
  });

  it('when the supplier timeout is set, then the ack wait exceeds it for every prefetched message', () => {
    expect(production.ackWaitMs).toBeGreaterThan(4 * 10_000);
    expect(retryPolicy({ windowMs: 900_000, baseMs: 1_000, maxMs: 60_000, supplierTimeoutMs: 30_000 }).ackWaitMs).toBeGreaterThan(4 * 30_000);
  });

  it('when the order was paid a window ago or more, then the window is over; an unreadable time counts as over', () => {
    const now = Date.parse('2025-01-01T00:15:00.000Z');
    expect(retryWindowOver('2025-01-01T00:00:00.001Z', 900_000, now)).toBe(false);
    expect(retryWindowOver('2025-01-01T00:00:00.000Z', 900_000, now)).toBe(true);
    expect(retryWindowOver('yesterday', 900_000, now)).toBe(true);
  });
});
