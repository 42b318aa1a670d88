/**
 * The one retry policy of every durable consumer: exponential backoff from
 * `firstMs`, capped at `maxMs`, with jitter. Declared with each consumer
 * (`ConsumerSpec.retry`), so the schedules differ only in their numbers,
 * never in their formula.
 *
 * Jitter spreads the redeliveries of messages that failed together (a
 * database blip fails every in-flight event at once): without it they all
 * come back in the same millisecond and fail together again.
 */
export interface RetryPolicy {
  /** Delay before the first redelivery. */
  firstMs: number;
  /** The longest delay. */
  maxMs: number;
  /** Fraction of each delay taken off at random (0: none, 1: anywhere from 0 to the delay). Default 0.2. */
  jitter?: number;
}

export const defaultJitter = 0.2;

/** The delay before redelivering a message whose `deliveryCount`-th delivery failed: firstMs·2^(n−1), capped, minus up to `jitter` of it. */
export function retryDelayMs(policy: RetryPolicy, deliveryCount: number, random: () => number = Math.random): number {
  const exponent = Math.max(0, Math.min(deliveryCount - 1, 40));
  const delay = Math.min(policy.firstMs * 2 ** exponent, policy.maxMs);
  const jitter = Math.min(1, Math.max(0, policy.jitter ?? defaultJitter));
  return Math.round(delay * (1 - jitter * random()));
}

/** The shortest delay the policy can give for that delivery (all of the jitter taken off): what a bound on total retry time must count with. */
export function shortestRetryDelayMs(policy: RetryPolicy, deliveryCount: number): number {
  return retryDelayMs(policy, deliveryCount, () => 1);
}
