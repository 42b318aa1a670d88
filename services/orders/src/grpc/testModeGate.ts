import { AppError } from '@esim/errors';

export interface TestModeGateOptions {
  /** Test-mode calls running at once in this process. */
  concurrency: number;
  /** Test-mode calls waiting for a turn; past it a call is refused UNAVAILABLE at once. */
  queueMax: number;
}

interface Waiter {
  start: () => void;
  timer: NodeJS.Timeout | undefined;
}

/**
 * Admission of test-mode calls (§14: test load never slows live): a few at a
 * time per process, the rest queued in arrival order, so a test flood waits
 * here instead of competing with live orders for the database pool, the
 * wallet and the event loop. Live calls never pass through it.
 *
 * A call that waits past its caller's deadline is dropped before it starts:
 * nothing of it was done (no row, no debit), the caller heard a deadline or
 * UNAVAILABLE, and the same clientRequestId sent again is a fresh attempt.
 * Once started, a call runs to its end as any other.
 */
export class TestModeGate {
  private running = 0;
  private readonly queue: Waiter[] = [];

  constructor(private readonly options: TestModeGateOptions) {}

  /** Runs `work` when a turn is free; `deadline` (epoch ms) bounds the wait. */
  async run<T>(work: () => Promise<T>, deadline?: number): Promise<T> {
    await this.admit(deadline);
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  private admit(deadline: number | undefined): Promise<void> {
    if (this.running < this.options.concurrency && this.queue.length === 0) {
      this.running += 1;
      return Promise.resolve();
    }
    if (this.queue.length >= this.options.queueMax) return Promise.reject(busy());
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { start: resolve, timer: undefined };
      const waitMs = deadline === undefined || !Number.isFinite(deadline) ? undefined : deadline - Date.now();
      if (waitMs !== undefined) {
        waiter.timer = setTimeout(() => {
          const at = this.queue.indexOf(waiter);
          if (at >= 0) this.queue.splice(at, 1);
          reject(busy());
        }, Math.max(0, waitMs));
        waiter.timer.unref();
      }
      this.queue.push(waiter);
    });
  }

  private release(): void {
    const next = this.queue.shift();
    if (!next) {
      this.running -= 1;
      return;
    }
    // The turn passes straight to the next waiter: `running` stays as it is.
    clearTimeout(next.timer);
    next.start();
  }
}

function busy(): AppError {
  return new AppError('UNAVAILABLE', 'Test mode is busy; retry shortly.');
}
