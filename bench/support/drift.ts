/**
 * Whether a soak series drifted upward (bench/soak.ts). A series drifts when
 * its second half (after settling) sits higher than its first half by more
 * than both allowances of its kind:
 * - RSS compares the halves' high-water marks. Memory moves in a sawtooth:
 *   V8 grows the heap in steps and gives pages back after a full collection,
 *   and it sizes the next step from what survived. A leak raises the peaks
 *   half after half; a heap that steps up once and stays (or a collection
 *   that happens early, dropping the curve and making any fitted line rise)
 *   does not.
 * - p99 compares the halves' medians: one slow window is not a trend.
 * The fitted slope is reported beside it, for the reader, not judged.
 */
export const driftRules = {
  rss: { relative: 0.05, absolute: 8 },
  p99: { relative: 0.5, absolute: 5 },
} as const;

export interface Drift {
  series: string;
  unit: 'MiB' | 'ms';
  /** The first half's level (peak for RSS, median for p99). */
  first: number;
  /** The second half's level. */
  second: number;
  rise: number;
  slopePerMinute: number;
  drifts: boolean;
}

/** Least-squares line through (x, y): slope and intercept. */
export function fitLine(points: Array<[number, number]>): { slope: number; intercept: number } {
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  const sxy = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const slope = sxx === 0 ? 0 : sxy / sxx;
  return { slope, intercept: my - slope * mx };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** `points` are (seconds into the run, value), settled samples only, at least four. */
export function drift(series: string, unit: 'MiB' | 'ms', points: Array<[number, number]>): Drift {
  if (points.length < 4) throw new Error(`${series}: ${points.length} samples are too few to judge drift`);
  const values = points.map(([, y]) => y);
  const half = Math.floor(values.length / 2);
  const level = unit === 'MiB' ? (ys: number[]) => Math.max(...ys) : median;
  const first = level(values.slice(0, half));
  const second = level(values.slice(half));
  const rise = second - first;
  const rule = unit === 'MiB' ? driftRules.rss : driftRules.p99;
  return { series, unit, first, second, rise, slopePerMinute: fitLine(points).slope * 60, drifts: rise > rule.absolute && rise > rule.relative * Math.max(first, 1e-9) };
}
