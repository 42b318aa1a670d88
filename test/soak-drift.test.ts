// Protects the soak's verdict (bench/soak.ts exits non-zero on drift): a leak or a slowing service is caught, a heap that steps up once and stays, or noisy latency, is not.
import { describe, expect, it } from 'vitest';
import { drift } from '../bench/support/drift.js';

/** Samples every 10 s from minute 1 to minute 10, value by minute. */
const series = (valueAt: (minute: number) => number): Array<[number, number]> =>
  Array.from({ length: 55 }, (_, i) => {
    const atS = 60 + i * 10;
    return [atS, valueAt(atS / 60)];
  });

describe('soak drift', () => {
  it('when RSS keeps rising by 2 MiB a minute, then it drifts', () => {
    expect(drift('RSS leaky', 'MiB', series((m) => 100 + 2 * m)).drifts).toBe(true);
  });

  it('when RSS saws between collections around a steady level, then it does not drift', () => {
    expect(drift('RSS steady', 'MiB', series((m) => 110 + ((m * 60) % 90) / 9)).drifts).toBe(false);
  });

  it('when RSS drops at an early full collection and grows back to its earlier peak, then it does not drift (a fitted line would rise)', () => {
    const wallet = series((m) => (m < 2.5 ? 127 : m < 6.5 ? 100 + (m - 2.5) * 2 : 126));
    expect(drift('RSS wallet', 'MiB', wallet).drifts).toBe(false);
    expect(drift('RSS wallet', 'MiB', wallet).slopePerMinute).toBeGreaterThan(0);
  });

  it('when RSS steps up above its first-half peak and stays there, then it drifts', () => {
    expect(drift('RSS step', 'MiB', series((m) => (m < 6 ? 120 : 140))).drifts).toBe(true);
  });

  it('when p99 doubles in the second half, then it drifts; when one window is slow, then it does not', () => {
    expect(drift('p99 slowing', 'ms', series((m) => (m < 5.5 ? 20 : 45))).drifts).toBe(true);
    expect(drift('p99 one spike', 'ms', series((m) => (Math.abs(m - 8) < 0.05 ? 400 : 20))).drifts).toBe(false);
  });

  it('when there are too few samples to compare halves, then it refuses to judge', () => {
    expect(() => drift('RSS short', 'MiB', [[60, 1], [70, 1], [80, 1]])).toThrow(/too few/);
  });
});
