import { retryDelayMs as retryDelayMsOf, shortestRetryDelayMs, type RetryPolicy as EventRetryPolicy } from '@esim/events';

/**
 * How long and how often a paid order's supplier call is retried (contract
 * §8: transient errors are retried with backoff for up to 15 minutes). The
 * window is measured from the moment the order was paid, not from our first
 * try, so a worker outage eats into it rather than extending it.
 */
export interface RetryPolicy {
  windowMs: number;
  /** The consumer's backoff (@esim/events: base·2^(n−1), capped at max, with jitter). */
  retry: EventRetryPolicy;
  /** Delay before the n-th redelivery without jitter: base·2^(n−1), capped at max. */
  retryDelayMs(deliveryCount: number): number;
  /** JetStream's delivery bound: comfortably more deliveries than the window can hold. */
  maxDeliver: number;
  /** How long JetStream waits for our ack before redelivering. */
  ackWaitMs: number;
}

/**
 * Messages the shared consumer fetches ahead (`max_messages` in
 * @esim/events): they are handled one after another, so the last one's ack
 * clock runs while the others each wait up to a supplier timeout.
 */
const prefetchedMessages = 4;
/** Time a delivery needs besides the supplier call: the transaction, the outbox insert, the ack. */
const handlingMarginMs = 5_000;
const minMaxDeliver = 1_000;

export function retryPolicy(options: { windowMs: number; baseMs: number; maxMs: number; supplierTimeoutMs: number }): RetryPolicy {
  const { windowMs, baseMs, maxMs } = options;
  const retry: EventRetryPolicy = { firstMs: baseMs, maxMs };
  const retryDelayMs = (deliveryCount: number) => retryDelayMsOf({ ...retry, jitter: 0 }, deliveryCount);
  return {
    windowMs,
    retry,
    retryDelayMs,
    // Twice the deliveries that fit in the window if every call failed at once, so JetStream never
    // gives up on a message before the window has passed and the order has been failed explicitly.
    maxDeliver: Math.max(minMaxDeliver, 2 * (deliveriesToCover(windowMs, (n) => shortestRetryDelayMs(retry, n), maxMs) + 1)),
    ackWaitMs: prefetchedMessages * (options.supplierTimeoutMs + handlingMarginMs),
  };
}

/** How many deliveries pass before the delays between them add up to `windowMs`. */
function deliveriesToCover(windowMs: number, delayMs: (n: number) => number, maxMs: number): number {
  let elapsedMs = 0;
  let n = 1;
  // The doubling phase is short (the delay reaches the cap within ~40 steps); the capped rest is arithmetic.
  while (elapsedMs < windowMs && delayMs(n) < maxMs) elapsedMs += delayMs(n++);
  if (elapsedMs >= windowMs) return n;
  return n + Math.ceil((windowMs - elapsedMs) / maxMs);
}

/** True once the order was paid `windowMs` or longer ago; an unreadable timestamp counts as expired. */
export function retryWindowOver(paidAt: string, windowMs: number, nowMs: number = Date.now()): boolean {
  const paidAtMs = Date.parse(paidAt);
  return !Number.isFinite(paidAtMs) || nowMs - paidAtMs >= windowMs;
}
