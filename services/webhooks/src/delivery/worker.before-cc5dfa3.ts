import { context } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import { listenFor, type Pool } from '@esim/postgres';
import type { Logger } from '@esim/telemetry';
import type { ClaimedAttempt } from '../domain/delivery.js';
import { claimDueAttempts } from '../store/attemptStore.js';
import { deliveriesDueChannel } from '../store/eventStore.js';
import { deliveryMetrics, type AttemptOutcome } from './metrics.js';

export interface WorkerOptions {
  pool: Pool;
  logger: Logger;
  /** Attempts in flight in this process. */
  concurrency: number;
  /** Attempts in flight to one partner, over every replica. */
  partnerConcurrency: number;
  pollMs: number;
  /** How long a claimed attempt is ours: longer than the slowest attempt can take. */
  leaseMs: number;
  attempt(claimed: ClaimedAttempt): Promise<AttemptOutcome>;
}

export interface DeliveryWorker {
  /** Stops claiming, then waits for the attempts in flight (each bounded by its timeout). Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * The delivery loop: claims due deliveries while this process has free
 * slots, runs each attempt on its own, and polls again when idle or when an
 * attempt ends (an ended attempt may unblock the next event of its order).
 * Its own queries run with tracing suppressed, so a poll never makes a root
 * span; each attempt is a span of the event's trace instead.
 */
export function startDeliveryWorker(options: WorkerOptions): DeliveryWorker {
  const { pool, logger } = options;
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  let wake: (() => void) | undefined;
  // A delivery made due while a claim was running is remembered, so it never waits for the next poll.
  let notified = false;
  const listener = listenFor(
    pool,
    deliveriesDueChannel,
    () => {
      notified = true;
      wake?.();
    },
    (error) => logger.warn({ err: error }, 'cannot listen for due deliveries; polling only'),
  );

  const idle = () =>
    new Promise<void>((resolve) => {
      if (notified) return resolve();
      const timer = setTimeout(resolve, options.pollMs);
      timer.unref();
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    }).finally(() => {
      wake = undefined;
    });

  function run(claimed: ClaimedAttempt): void {
    deliveryMetrics.inFlight.add(1);
    const running: Promise<void> = options
      .attempt(claimed)
      .then(
        () => undefined,
        (error: unknown) => logger.error({ err: error, deliveryId: claimed.deliveryId }, 'webhook attempt crashed; its lease will expire and it will be retried'),
      )
      .finally(() => {
        deliveryMetrics.inFlight.add(-1);
        inFlight.delete(running);
        wake?.();
      });
    inFlight.add(running);
  }

  async function tick(): Promise<number> {
    const free = options.concurrency - inFlight.size;
    if (free <= 0) return 0;
    const claimed = await context.with(suppressTracing(context.active()), () =>
      claimDueAttempts(pool, { limit: free, perPartner: options.partnerConcurrency, leaseMs: options.leaseMs }),
    );
    for (const attempt of claimed) run(attempt);
    return claimed.length;
  }

  const loop = (async () => {
    while (!stopped) {
      await listener.ensure();
      notified = false;
      let claimed = 0;
      try {
        claimed = await tick();
      } catch (error) {
        logger.warn({ err: error }, 'claiming due webhook deliveries failed; retrying');
      }
      // A full batch may mean more is due: look again at once while slots are free.
      if (!stopped && (claimed === 0 || inFlight.size >= options.concurrency)) await idle();
    }
  })();

  let stopping: Promise<void> | undefined;
  return {
    stop() {
      stopping ??= (async () => {
        stopped = true;
        wake?.();
        await loop;
        await listener.stop();
        await Promise.allSettled([...inFlight]);
      })();
      return stopping;
    },
  };
}
