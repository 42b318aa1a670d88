import { AppError } from '@esim/errors';

export interface TestModeGateOptions {
  /** Test-mode calls running at once in this process. */
  concurrency: number;
  /** Test-mode calls waiting for a turn; past it a call is refused UNAVAILABLE at once. */
  queueMax: number;
  /**
   * A waiting call whose caller has less than this left is refused instead
   * of started: it could not finish, and starting it would only leave a
   * pending order for the sweeper (its wallet call out of time).
   */
  minRemainingMs: number;
}

interface Waiter {
  start: () => void;
  refuse: () => void;
  /** Epoch ms; Infinity when the caller set none. */
  deadline: number;
  timer: NodeJS.Timeout | undefined;
}

/**
 * Admission of test-mode calls (§14: test load never slows live): a few at a
 * time per process, the rest queued in arrival order, so a test flood waits
 * here instead of competing with live orders for the database pool, the
 * wallet and the event loop. Live calls never pass through it.
 *
 * A waiting call refused (queue full, or its caller's deadline too close) is
 * refused before it starts: nothing of it was done (no row, no debit), the
 * caller hears UNAVAILABLE or its own deadline, and the same clientRequestId
 * sent again is a fresh attempt. Once started, a call runs to its end as any
 * other.
 */
export class TestModeGate {
  private running = 0;
  private readonly queue: Waiter[] = [];

  constructor(private readonly options: TestModeGateOptions) {}

  /** Runs `work` when a turn is free; `deadline` (epoch ms) bounds the wait. */
  async run<T>(work: () => Promise<T>, deadline?: number): Promise<T> {
    await this.admit(deadline ?? Infinity);
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  private admit(deadline: number): Promise<void> {
    if (this.running < this.options.concurrency && this.queue.length === 0) {
      this.running += 1;
      return Promise.resolve();
    }
    if (this.queue.length >= this.options.queueMax) return Promise.reject(busy());
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { start: resolve, refuse: () => reject(busy()), deadline, timer: undefined };
      if (Number.isFinite(deadline)) {
        waiter.timer = setTimeout(() => {
          const at = this.queue.indexOf(waiter);
          if (at >= 0) this.queue.splice(at, 1);
          waiter.refuse();
        }, Math.max(0, deadline - this.options.minRemainingMs - Date.now()));
        waiter.timer.unref();
      }
      this.queue.push(waiter);
    });
  }

  /** The turn passes straight to the next waiter that still has time (`running` unchanged), else it is freed. */
  private release(): void {
    for (let next = this.queue.shift(); next; next = this.queue.shift()) {
      clearTimeout(next.timer);
      // A timer late on a busy event loop: checked here too.
      if (next.deadline - Date.now() < this.options.minRemainingMs) {
        next.refuse();
        continue;
      }
      next.start();
      return;
    }
    this.running -= 1;
  }
}

function busy(): AppError {
  return new AppError('UNAVAILABLE', 'Test mode is busy; retry shortly.');
}
