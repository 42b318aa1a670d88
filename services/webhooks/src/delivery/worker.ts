import { context } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import { servedLanes, type Lane } from '@esim/events';
import { listenFor, type Pool } from '@esim/postgres';
import type { Logger } from '@esim/telemetry';
import type { ClaimedAttempt } from '../domain/delivery.js';
import { claimDueAttempts, msUntilNextDue } from '../store/attemptStore.js';
import { deliveriesDueChannels } from '../store/eventStore.js';
import { deliveryMetrics, type AttemptOutcome } from './metrics.js';

export interface WorkerOptions {
  pool: Pool;
  logger: Logger;
  /** Attempts in flight in this process. */
  concurrency: number;
  /** Attempts in flight to one partner, over every replica. */
  partnerConcurrency: number;
  /** How soon to look again while a due delivery waits for a free slot, or while no connection listens for new ones. */
  pollMs: number;
  /**
   * The longest an idle worker sleeps while it listens: new deliveries wake
   * it by NOTIFY and retries by their due time, so this poll is only the
   * safety net (a notification lost with its connection).
   */
  idlePollMs: number;
  /** How long a claimed attempt is ours: longer than the slowest attempt can take. */
  leaseMs: number;
  attempt(claimed: ClaimedAttempt): Promise<AttemptOutcome>;
  /** The modes whose deliveries this process makes (EVENT_LANES; default both). */
  lanes?: readonly Lane[];
}

export interface DeliveryWorker {
  /** Stops claiming, then waits for the attempts in flight (each bounded by its timeout). Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * The delivery loop: claims due deliveries while this process has free
 * slots, runs each attempt on its own, and looks again when woken: by the
 * NOTIFY of a new delivery, when an attempt ends (it may unblock the next
 * event of its order), or when the soonest retry falls due. At rest it
 * sleeps `idlePollMs`, not `pollMs`.
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
    servedLanes(options.lanes).map((lane) => deliveriesDueChannels[lane]),
    () => {
      notified = true;
      wake?.();
    },
    (error) => logger.warn({ err: error }, 'cannot listen for due deliveries; polling only'),
  );

  /** Milliseconds until the soonest pending delivery is due (0: due now), undefined when none is pending; 0 when unknown (the claim reports the outage). */
  async function dueInMs(): Promise<number | undefined> {
    try {
      return await context.with(suppressTracing(context.active()), () => msUntilNextDue(pool, options.lanes));
    } catch {
      return 0;
    }
  }
  const sleepFor = (dueIn: number | undefined) =>
    dueIn === undefined ? options.idlePollMs : dueIn <= 0 ? options.pollMs : Math.min(Math.max(dueIn, options.pollMs / 10), options.idlePollMs);

  /** How long to sleep when nothing was claimed; `pollMs` while something due waits for a slot or nobody listens. */
  async function idleMs(): Promise<number> {
    if (!listener.listening()) return options.pollMs;
    return sleepFor(await dueInMs());
  }

  const idle = (ms: number) =>
    new Promise<void>((resolve) => {
      if (notified) return resolve();
      const timer = setTimeout(resolve, ms);
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
        // Remembered like a notification: an attempt ending while a claim runs must not wait for the safety-net poll.
        notified = true;
        wake?.();
      });
    inFlight.add(running);
  }

  async function tick(): Promise<number> {
    const free = options.concurrency - inFlight.size;
    if (free <= 0) return 0;
    const claimed = await context.with(suppressTracing(context.active()), () =>
      claimDueAttempts(pool, { limit: free, perPartner: options.partnerConcurrency, leaseMs: options.leaseMs, lanes: options.lanes }),
    );
    for (const attempt of claimed) run(attempt);
    return claimed.length;
  }

  const loop = (async () => {
    // At start, after a notification or an ending attempt, and after a claim with slots left, claim at once.
    let expectWork = true;
    while (!stopped) {
      await listener.ensure();
      expectWork ||= notified;
      notified = false;
      // Woken by the timer while listening (at rest, the safety net): claim only when something is due. The
      // indexed min() says so in one statement, where an empty claim costs a locked transaction of four.
      if (!expectWork && listener.listening()) {
        const dueIn = await dueInMs();
        if (dueIn === undefined || dueIn > 0) {
          await idle(sleepFor(dueIn));
          continue;
        }
      }
      expectWork = false;
      let claimed = 0;
      try {
        claimed = await tick();
      } catch (error) {
        logger.warn({ err: error }, 'claiming due webhook deliveries failed; retrying');
      }
      // A full batch may mean more is due: look again at once while slots are free.
      if (stopped || (claimed > 0 && inFlight.size < options.concurrency)) {
        expectWork = true;
        continue;
      }
      // Full: an ending attempt wakes us. Empty-handed: until the soonest retry, at most idlePollMs.
      await idle(claimed > 0 ? options.idlePollMs : await idleMs());
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
